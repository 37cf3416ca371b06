import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EMBEDDED_VERSION,
  NO_CORPUS_REFUSAL,
  OperatorGateError,
  PolicyMismatchError,
  classifyRunOutcome,
  embeddedToolchain,
  renderPolicyToml,
  toolchainFromEnv,
} from '../../src/index.js';
import { effectivePolicy, policyDigest } from '../../src/policy/policy.js';
import { RAW_BUILTINS } from '../../src/stdlib/registry.js';
import { superviseRun } from '../../src/policy/supervisor.js';
import type { AilangContext } from '../../src/toolchain/types.js';
import { episodePolicy } from '../helpers/programs.js';

/** The embedded toolchain through its public API (world-spec §3.4–§3.8), workers from dist/. */

const PROGRAMS: Record<string, string> = {
  'hello.ail':
    'module hello\nimport std/io (println)\nexport func main() -> () ! {IO} = println("hi")\n',
  'writer.ail':
    'module writer\nimport std/fs (writeFile)\nexport func main() -> () ! {FS} = writeFile("out.txt", "x")\n',
  'chatty.ail':
    'module chatty\nimport std/io (print)\nfunc loop(n: int) -> () ! {IO} = let _ = print("0123456789") in loop(n + 1)\nexport func main() -> () ! {IO} = loop(0)\n',
  'spin.ail':
    'module spin\npure func s(n: int) -> int = s(n + 1)\nexport func main() -> int = s(0)\n',
  'bad.ail': 'module bad\nexport func main() -> int = "x"\n',
};

describe('embeddedToolchain', () => {
  const tc = embeddedToolchain();
  let root: string;
  let ctx: AilangContext;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ailang-tc-'));
    const worktree = join(root, 'ws', 'ep1');
    mkdirSync(worktree, { recursive: true });
    mkdirSync(join(root, 'policies'));
    for (const [f, text] of Object.entries(PROGRAMS)) writeFileSync(join(worktree, f), text);
    symlinkSync('/etc/hosts', join(worktree, 'link.ail'));
    // A FIFO nobody writes: reading it would block the reading thread for good.
    execFileSync('mkfifo', [join(worktree, 'pipe.ail')]);
    writeFileSync(
      join(worktree, 'readpipe.ail'),
      'module readpipe\nimport std/fs (readFile)\nimport std/io (println)\nexport func main() -> () ! {IO, FS} = println(readFile("pipe.ail"))\n',
    );
    const policy = episodePolicy(worktree);
    const policyPath = join(root, 'policies', 'ep1.toml');
    writeFileSync(policyPath, renderPolicyToml(policy));
    ctx = { worktree, policy, policyPath, runAllowCaps: [], netAllow: [], deadlineMs: 10_000 };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('announces a version the real binary can never print (ailang.md §1.2)', async () => {
    expect(await tc.version()).toBe(EMBEDDED_VERSION);
    expect(/^AILANG (v\S+)/.exec(EMBEDDED_VERSION)![1]).toBe('v0.51.0-lite');
    expect(await tc.toolRef()).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(tc.kind).toBe('embedded');
  });

  it('is the toolchain of an environment without AILANG_BIN (DESIGN.md §7.8)', () => {
    expect(toolchainFromEnv({}).kind).toBe('embedded');
    expect(toolchainFromEnv({ AILANG_BIN: '/opt/ailang' }).kind).toBe('binary');
  });

  describe('aiCheck (world-spec §3.4)', () => {
    it('answers the ai-check report of a file', async () => {
      const out = await tc.aiCheck(ctx, { path: 'bad.ail' });
      expect([
        out.ok,
        out.argv,
        out.exit_code,
        JSON.parse(out.stdout as string).check,
        out.stderr,
      ]).toEqual([
        true,
        ['ai-check', '--', 'bad.ail'],
        1,
        {
          passed: false,
          error_count: 1,
          errors: [
            {
              code: 'TC_TYPE_001',
              message:
                'type error in bad (decl 0): at bad.ail:2:29: type mismatch in the function body: expected int, got string',
              file: 'bad.ail',
              line: 2,
              column: 29,
              suggestion: 'change the expression or the annotation so both have the expected type',
            },
          ],
        },
        '',
      ]);
    });

    it('refuses a path escaping the worktree with the policy layer wording (world-spec §3.1)', async () => {
      expect(await tc.aiCheck(ctx, { path: '/etc/hosts' })).toEqual({
        ok: false,
        refused: `ai_check /etc/hosts: path "/etc/hosts" escapes sandbox "${ctx.worktree}"`,
      });
      expect(await tc.aiCheck(ctx, { path: 'link.ail' })).toEqual({
        ok: false,
        refused: `ai_check link.ail: path "link.ail" escapes sandbox "${ctx.worktree}"`,
      });
    });

    it('reports an unreadable file as IO_ERROR with exit 1 (ailang.md §1.4)', async () => {
      const out = await tc.aiCheck(ctx, { path: 'nope.ail' });
      expect([out.exit_code, JSON.parse(out.stdout as string).check.errors]).toEqual([
        1,
        [
          {
            code: 'IO_ERROR',
            message: 'open nope.ail: no such file or directory',
            file: 'nope.ail',
            suggestion: 'check the path: it is relative to the worktree root',
          },
        ],
      ]);
    });

    it('reports a FIFO as IO_ERROR at once, never blocking on it', async () => {
      const out = await tc.aiCheck(ctx, { path: 'pipe.ail' });
      expect([out.exit_code, JSON.parse(out.stdout as string).check.errors[0].message]).toEqual([
        1,
        'open pipe.ail: not a regular file',
      ]);
    });

    it('answers TIMEOUT with exit 124 when the deadline passes first (ailang.md §1.3)', async () => {
      const out = await tc.aiCheck({ ...ctx, deadlineMs: 1 }, { path: 'hello.ail' });
      expect([out.exit_code, JSON.parse(out.stdout as string).check.errors]).toEqual([
        124,
        [{ code: 'TIMEOUT', message: 'compilation timed out after 1ms', file: 'hello.ail' }],
      ]);
    });
  });

  it('lists builtins as the text inventory (world-spec §3.6)', async () => {
    const out = await tc.builtinsList(ctx);
    expect([
      out.ok,
      out.argv,
      out.exit_code,
      (out.stdout as string).split('\n')[0],
      out.stderr,
    ]).toEqual([true, ['builtins', 'list'], 0, `Total: ${RAW_BUILTINS.length} builtins`, '']);
  });

  describe('examplesSearch (world-spec §3.7)', () => {
    it('refuses without a corpus, with the exact text', async () => {
      expect(await tc.examplesSearch(ctx, { query: 'fold' })).toEqual({
        ok: false,
        refused: NO_CORPUS_REFUSAL,
      });
    });

    it('searches the operator corpus', async () => {
      const corpus = join(root, 'examples');
      mkdirSync(join(corpus, 'runnable'), { recursive: true });
      writeFileSync(join(corpus, 'runnable', 'fold.ail'), 'module fold\n-- foldl sums\n');
      const out = await tc.examplesSearch({ ...ctx, examplesDir: corpus }, { query: 'foldl' });
      expect([out.ok, out.argv, out.stdout]).toEqual([
        true,
        ['examples', 'search', 'foldl'],
        '1 example matches "foldl":\nrunnable/fold.ail:2: -- foldl sums\n',
      ]);
    });
  });

  describe('cli (world-spec §3.8)', () => {
    it.each([
      [{ op: 'version' }, { ok: true, exit_code: 0, argv: ['version'] }],
      [
        { op: 'iface', module: 'std/io', flags: { compact: '' } },
        { ok: true, exit_code: 0, argv: ['iface', '--compact', 'std/io'] },
      ],
      [
        { op: 'check', path: 'bad.ail', flags: { json: '' } },
        { ok: true, exit_code: 1, argv: ['check', '--json', '--', 'bad.ail'] },
      ],
      [
        { op: 'policy_check', path: 'hello.ail' },
        { ok: true, exit_code: 0 },
      ],
      [
        { op: 'builtins_show', module: 'println' },
        { ok: true, exit_code: 0 },
      ],
    ])('runs %j', async (payload, expected) => {
      expect(await tc.cli(ctx, payload)).toMatchObject(expected);
    });

    it('prints the version text of the embedded subset', async () => {
      const out = await tc.cli(ctx, { op: 'version' });
      expect((out.stdout as string).split('\n')[0]).toBe(EMBEDDED_VERSION);
    });

    it.each([
      [
        { op: 'fmt', path: 'hello.ail' },
        'op fmt is not supported by the embedded AILANG toolchain (the TypeScript subset has no formatter; set AILANG_BIN to a real ailang binary for it)',
      ],
      [
        { op: 'docs_search', query: 'x' },
        'op docs_search is not supported by the embedded AILANG toolchain (the TypeScript subset ships no documentation index; set AILANG_BIN to a real ailang binary for it)',
      ],
      [
        { op: 'check', path: 'hello.ail', flags: { 'strict-syntax': '' } },
        'op check flag --strict-syntax is not supported by the embedded AILANG toolchain; set AILANG_BIN to a real ailang binary for it',
      ],
      [
        { op: 'check', path: 'hello.ail', flags: { zz: '' } },
        'op check does not admit flag --zz (admitted: --json --quiet --strict-syntax)',
      ],
      [{ op: 'examples_list' }, NO_CORPUS_REFUSAL],
      [{ Op: 'version' }, 'key "Op" is a case-folded alias of "op"; send "op" exactly'],
    ])('refuses %j by name, never faking it', async (payload, refused) => {
      expect(await tc.cli(ctx, payload)).toEqual({ ok: false, refused });
    });
  });

  describe('run (world-spec §3.5)', () => {
    it('refuses a cap the operator has not enabled before any worker starts', async () => {
      await expect(tc.run(ctx, { path: 'hello.ail', caps: ['Env', 'IO'] })).rejects.toThrow(
        OperatorGateError,
      );
    });

    it('refuses a payload the plan would have refused, with its wording', async () => {
      expect(await tc.run(ctx, { path: 'hello.ail', caps: ['Process'] })).toEqual({
        ok: false,
        refused:
          'unknown capability "Process"; caps admits only: Clock, Declassify, Env, FS, IO, Net',
      });
    });

    it('fails a program reading a FIFO at once with the I/O error, and a FIFO entry before it runs', async () => {
      const read = await tc.run(ctx, { path: 'readpipe.ail' });
      const entry = await tc.run(ctx, { path: 'pipe.ail' });
      expect([
        read.admitted,
        read.exit_code,
        (read.stderr as string).split('\n')[0],
        entry.admitted,
        JSON.stringify(entry).includes('not a regular file'),
      ]).toEqual([
        true,
        1,
        'Error: execution failed: readFile: open pipe.ail: not a regular file',
        false,
        true,
      ]);
    });

    it('refuses an entry symlinked out of the worktree', async () => {
      expect(await tc.run(ctx, { path: 'link.ail' })).toEqual({
        ok: false,
        refused: `run link.ail: path "link.ail" escapes sandbox "${ctx.worktree}"`,
      });
    });

    it('runs an IO-only cap set with FS at budget 0, failing at first FS use (world-spec §3.5 variants)', async () => {
      const out = await tc.run(ctx, { path: 'writer.ail', caps: ['IO'] });
      expect([
        out.admitted,
        out.exit_code,
        (out.stderr as string).split('\n')[0],
        out.policy,
      ]).toEqual([
        true,
        1,
        "Error: execution failed: effect 'FS' budget exhausted: limit=0, used=0",
        {
          digest: policyDigest(
            renderPolicyToml({ ...ctx.policy, allowed_caps: ['FS', 'IO'], budgets: { FS: 0 } }),
          ),
          security_mode: 'restricted',
          caps: ['FS', 'IO'],
          net_allow: [],
        },
      ]);
    });

    it('reports the episode policy digest of the policy file for a default run', async () => {
      const out = await tc.run(ctx, { path: 'hello.ail' });
      expect([out.stdout, (out.policy as { digest: string }).digest]).toEqual([
        'hi\n',
        policyDigest(renderPolicyToml(ctx.policy)),
      ]);
    });

    it('stops an endless program at timeout_ms with a timeout envelope (ailang.md §1.5)', async () => {
      const out = await tc.run(
        { ...ctx, policy: { ...ctx.policy, timeout_ms: 200 } },
        { path: 'spin.ail' },
      );
      expect([out.exit_code, out.limit]).toEqual([
        3,
        {
          version: 1,
          stage: 'execute',
          reason: 'timeout',
          message: 'exceeded timeout_ms (200ms); worker thread terminated',
          policy_digest: policyDigest(renderPolicyToml(ctx.policy)),
          security_mode: 'restricted',
        },
      ]);
    });

    it('stops at the handler deadline when it comes first', async () => {
      const out = await tc.run({ ...ctx, deadlineMs: 5000 }, { path: 'spin.ail' });
      expect([out.exit_code, (out.limit as { message: string }).message]).toEqual([
        3,
        'exceeded the handler deadline (5s); worker thread terminated',
      ]);
    });

    it('refuses a policy file inside the worktree (world-spec §8.2)', async () => {
      await expect(
        tc.run({ ...ctx, policyPath: join(ctx.worktree, 'p.toml') }, { path: 'hello.ail' }),
      ).rejects.toThrow(PolicyMismatchError);
    });

    it('refuses a policy whose fs_sandbox is not the worktree', async () => {
      await expect(
        tc.run({ ...ctx, policy: { ...ctx.policy, fs_sandbox: '/tmp' } }, { path: 'hello.ail' }),
      ).rejects.toThrow(PolicyMismatchError);
    });
  });

  it('stops a run at max_output_bytes with an output_limit envelope (ailang.md §1.5)', async () => {
    const base = effectivePolicy(ctx.policy, ctx.policyPath, 'd'.repeat(64));
    const policy = { ...base, limits: { ...base.limits, max_output_bytes: 25 } };
    const raw = await superviseRun(
      {
        worktree: ctx.worktree,
        file: 'chatty.ail',
        policy,
        stdin: '',
        argv: [],
        argsJson: null,
        env: {},
        maxRecursionDepth: 10_000,
        net: { timeoutMs: 1_000, maxResponseBytes: 1_024 },
      },
      5_000,
    );
    const outcome = classifyRunOutcome(raw);
    expect([outcome.exit_code, outcome.stdout, outcome.limit]).toEqual([
      3,
      '0123456789012345678901234',
      {
        version: 1,
        stage: 'execute',
        reason: 'output_limit',
        message: 'exceeded max_output_bytes (25); worker stopped',
        policy_digest: 'd'.repeat(64),
        security_mode: 'restricted',
      },
    ]);
  });
});
