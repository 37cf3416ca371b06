import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { effectivePolicy } from '../policy/policy.js';
import { episodePolicy } from '../../test/helpers/programs.js';
import { runResult, worktreeRelative } from './run-result.js';

describe('runResult: toolchain messages show worktree-relative paths (world-spec §3.5 result)', () => {
  const wt = mkdtempSync(join(tmpdir(), 'ailang-rel-'));
  afterAll(() => rmSync(wt, { recursive: true, force: true }));

  it('rewrites the worktree in Error/policy lines and messages, never program output', () => {
    const policy = effectivePolicy(
      episodePolicy(wt),
      '/home/w/.world/policies/ep1.toml',
      'f'.repeat(64),
    );
    const out = runResult(
      {
        admitted: true,
        exit_code: 1,
        decision: { ok: true, message: `read ${wt}/notes/a.txt` },
        limit: null,
        stdout: `${wt}/printed-by-the-program\n`,
        stderr: [
          `program says ${wt}/x`,
          `Error: execution failed: readFile: path "/etc/hosts" escapes sandbox "${wt}"`,
          `policy: {"fs_sandbox":"${wt}","policy":"/home/w/.world/policies/ep1.toml"}`,
          '',
        ].join('\n'),
      } as never,
      policy,
      wt,
    );
    expect(out).toEqual({
      admitted: true,
      exit_code: 1,
      decision: { ok: true, message: 'read notes/a.txt' },
      limit: null,
      stdout: `${wt}/printed-by-the-program\n`,
      stderr: [
        `program says ${wt}/x`,
        'Error: execution failed: readFile: path "/etc/hosts" escapes sandbox "."',
        `policy: {"fs_sandbox":".","policy":"${relative(wt, '/home/w/.world/policies/ep1.toml')}"}`,
        '',
      ].join('\n'),
      policy: {
        digest: 'f'.repeat(64),
        security_mode: 'restricted',
        caps: ['FS', 'IO'],
        net_allow: [],
      },
    });
  });

  it('shows the policy file relative to the worktree in the decision JSON of a refused run', () => {
    const root = mkdtempSync(join(tmpdir(), 'ailang-pol-'));
    try {
      const worktree = join(root, 'ws', 'demo');
      const policyPath = join(root, '.world', 'policies', 'demo.toml');
      const decision = {
        ok: false,
        error_kind: 'policy_violation',
        message: 'declared effects exceed policy',
      };
      const stdout = `${JSON.stringify({ file: 'a.ail', policy: policyPath, decision }, null, 2)}\n`;
      const out = runResult(
        { admitted: false, exit_code: 2, decision, limit: null, stdout, stderr: '' },
        effectivePolicy(episodePolicy(worktree), policyPath, 'f'.repeat(64)),
        worktree,
      );
      expect(JSON.parse(out.stdout as string)).toEqual({
        file: 'a.ail',
        policy: '../../.world/policies/demo.toml',
        decision,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('leaves a path that only starts with the worktree name alone', () => {
    expect(worktreeRelative('/w/ep1')(`"/w/ep1" "/w/ep10/x" /w/ep1/a`)).toBe('"." "/w/ep10/x" a');
  });
});
