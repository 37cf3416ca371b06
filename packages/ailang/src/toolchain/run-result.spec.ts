import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
        'policy: {"fs_sandbox":".","policy":"/home/w/.world/policies/ep1.toml"}',
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

  it('leaves a path that only starts with the worktree name alone', () => {
    expect(worktreeRelative('/w/ep1')(`"/w/ep1" "/w/ep10/x" /w/ep1/a`)).toBe('"." "/w/ep10/x" a');
  });
});
