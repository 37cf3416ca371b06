import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  OperatorGateError,
  PolicyMismatchError,
  RunEnvelopeError,
  ToolProcessError,
  binaryToolchain,
  renderPolicyToml,
} from '../../src/index.js';
import { policyDigest } from '../../src/policy/policy.js';
import type { AilangContext } from '../../src/toolchain/types.js';
import { episodePolicy } from '../helpers/programs.js';

/**
 * The binary adapter (ailang.md §1.5–§1.6; world-internals §8.2) against a fake `ailang` that
 * prints recorded outputs of the documented shapes: request encoding, the scrubbed environment,
 * policy verification, the four run outcomes, and process-group handling (timeout, a grandchild
 * holding the pipes, output overflow).
 */

const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-ailang.mjs');

const ADMITTED =
  'policy: {"ok":true,"policy":"p","policy_digest":"d","security_mode":"restricted","timeout_ms":8000,"decision":{"ok":true,"function":"main","declared_effects":["IO"],"allowed_caps":["FS","IO"]}}\n';
const REFUSED_STDOUT = JSON.stringify(
  {
    file: 'net.ail',
    policy: 'p',
    decision: {
      ok: false,
      error_kind: 'policy_violation',
      message: 'declared effects exceed policy',
      function: 'main',
      declared_effects: ['IO', 'Net'],
      allowed_caps: ['FS', 'IO'],
      missing_from_policy: ['Net'],
    },
  },
  null,
  2,
);
const LIMIT =
  '{"version":1,"stage":"execute","reason":"timeout","message":"exceeded timeout_ms (8s); worker process group killed","policy_digest":"d","security_mode":"restricted"}';

interface Invocation {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  pid: number;
  grandchild?: number;
}

/** True when the process is gone (absent, or a zombie awaiting its reaper). */
function dead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** SIGKILL is delivered asynchronously: poll up to `ms` for the pid to become a zombie or vanish. */
async function deadWithin(pid: number, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!dead(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('binaryToolchain', () => {
  let root: string;
  let bin: string;
  let ctx: AilangContext;

  const invocations = (): Invocation[] => {
    const f = join(dirname(bin), 'invocations.jsonl');
    if (!existsSync(f)) return [];
    return readFileSync(f, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Invocation);
  };
  const scenario = (s: Record<string, unknown>): void => {
    writeFileSync(join(dirname(bin), 'scenario.json'), JSON.stringify(s));
    rmSync(join(dirname(bin), 'invocations.jsonl'), { force: true });
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ailang-bin-'));
    mkdirSync(join(root, 'bin'));
    bin = join(root, 'bin', 'ailang');
    writeFileSync(bin, `#!${process.execPath}\n${readFileSync(fixture, 'utf8')}`);
    chmodSync(bin, 0o755);
    const worktree = join(root, 'ws', 'ep1');
    mkdirSync(worktree, { recursive: true });
    writeFileSync(join(worktree, 'hello.ail'), 'module hello\n');
    mkdirSync(join(root, 'policies'));
    const policy = episodePolicy(worktree);
    const policyPath = join(root, 'policies', 'ep1.toml');
    writeFileSync(policyPath, renderPolicyToml(policy));
    ctx = {
      worktree,
      policy,
      policyPath,
      runAllowCaps: [],
      netAllow: [],
      deadlineMs: 10_000,
      examplesDir: join(root, 'examples'),
    };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads the version line and hashes the binary as its tool ref', async () => {
    scenario({});
    const tc = binaryToolchain(bin);
    expect(await tc.version()).toBe('AILANG v0.51.0');
    expect(await tc.toolRef()).toBe(
      `sha256:${createHash('sha256').update(readFileSync(bin)).digest('hex')}`,
    );
    expect(tc.kind).toBe('binary');
  });

  it('verifies the policy with summary, then sends one policy-tool request with the scrubbed environment (world-spec §7.5)', async () => {
    scenario({
      policyTool: {
        stdout:
          '{"ok":true,"argv":["ai-check","hello.ail"],"exit_code":0,"stdout":"{}","stderr":""}',
      },
    });
    const out = await binaryToolchain(bin).aiCheck(ctx, { path: 'hello.ail' });
    expect(out).toEqual({
      ok: true,
      argv: ['ai-check', 'hello.ail'],
      exit_code: 0,
      stdout: '{}',
      stderr: '',
    });
    const calls = invocations();
    expect(calls.map((c) => [c.argv, c.stdin, c.cwd])).toEqual([
      [['policy-tool', '--policy', ctx.policyPath], '{"op":"summary"}', ctx.worktree],
      [
        ['policy-tool', '--policy', ctx.policyPath],
        '{"op":"ai_check","path":"hello.ail"}',
        ctx.worktree,
      ],
    ]);
    const cache = join(root, 'policies', 'cache', 'ep1');
    expect(calls[1]!.env).toEqual({
      HOME: cache,
      PATH: '/usr/bin:/bin',
      LANG: 'C',
      LC_ALL: 'C',
      AILANG_CACHE_DIR: cache,
      AILANG_EXAMPLES: ctx.examplesDir,
    });
  });

  it('refuses before exec what the handler must refuse (world-internals §8.2)', async () => {
    scenario({});
    const tc = binaryToolchain(bin);
    expect(await tc.cli(ctx, { op: 'fmt', path: 'hello.ail', flags: { write: '' } })).toMatchObject(
      { ok: false },
    );
    expect(await tc.cli(ctx, { op: 'tree', path: 'hello.ail' })).toMatchObject({
      ok: false,
      refused: expect.stringMatching(/^op "tree" is not an ailang-cli op; admitted: /),
    });
    expect(await tc.aiCheck(ctx, { path: '../x.ail' })).toEqual({
      ok: false,
      refused: `ai_check ../x.ail: path "../x.ail" escapes sandbox "${ctx.worktree}"`,
    });
    expect(
      await tc.examplesSearch({ ...ctx, examplesDir: undefined }, { query: 'x' }),
    ).toMatchObject({ ok: false });
    await expect(tc.run(ctx, { path: 'hello.ail', caps: ['Net'] })).rejects.toThrow(
      OperatorGateError,
    );
    expect(invocations().map((c) => JSON.parse(c.stdin!).op)).toEqual(['summary']);
  });

  it.each([
    ['a non-zero exit', { exitCode: 2, stdout: '' }, 'ailang policy-tool exited 2'],
    [
      'a response that is not JSON',
      { stdout: 'oops' },
      'ailang policy-tool answered something that is not JSON',
    ],
    [
      'a response without a boolean ok',
      { stdout: '{"ok":"yes"}' },
      'ailang policy-tool answered without a boolean "ok"',
    ],
    [
      'a response carrying a reserved key',
      { stdout: '{"ok":true,"tool":"sha256:x"}' },
      'ailang policy-tool answered a reserved key "tool"',
    ],
  ])('fails the op on %s', async (_name, policyTool, message) => {
    scenario({ policyTool });
    await expect(binaryToolchain(bin).builtinsList(ctx)).rejects.toThrow(
      new ToolProcessError(message),
    );
  });

  it('refuses a policy whose summary disagrees with it', async () => {
    scenario({ summaryOverride: { policy_digest: 'f'.repeat(64) } });
    await expect(binaryToolchain(bin).builtinsList(ctx)).rejects.toThrow(PolicyMismatchError);
  });

  describe('run (world-spec §3.5; results-and-errors.txt four shapes)', () => {
    it.each([
      [
        '(a) admitted',
        { exitCode: 0, stdout: 'hi\n', stderr: ADMITTED },
        { admitted: true, exit_code: 0, limit: null },
      ],
      [
        '(b) refused at runtime',
        {
          exitCode: 1,
          stdout: '',
          stderr: `Error: execution failed: readFile: path "/etc/hosts" escapes sandbox "/w"\n${ADMITTED}`,
        },
        { admitted: true, exit_code: 1, limit: null },
      ],
      [
        '(c) refused before execution',
        { exitCode: 2, stdout: REFUSED_STDOUT, stderr: '' },
        { admitted: false, exit_code: 2, limit: null },
      ],
      [
        '(d) supervisor limit',
        { exitCode: 3, stdout: 'partial', stderr: `${ADMITTED}policy-result: ${LIMIT}\n` },
        { admitted: true, exit_code: 3, limit: JSON.parse(LIMIT) },
      ],
    ])('classifies %s', async (_name, recorded, expected) => {
      scenario({ run: { 'hello.ail': recorded } });
      const out = await binaryToolchain(bin).run(ctx, { path: 'hello.ail' });
      expect(out).toMatchObject({ ...expected, stdout: recorded.stdout, stderr: recorded.stderr });
      expect(out.policy).toEqual({
        digest: policyDigest(renderPolicyToml(ctx.policy)),
        security_mode: 'restricted',
        caps: ['FS', 'IO'],
        net_allow: [],
      });
    });

    it('throws RunEnvelopeError for any other outcome', async () => {
      scenario({
        run: {
          'hello.ail': {
            exitCode: 1,
            stdout: '',
            stderr: 'Error: --policy: --caps is not allowed with --policy\n',
          },
        },
      });
      await expect(binaryToolchain(bin).run(ctx, { path: 'hello.ail' })).rejects.toThrow(
        RunEnvelopeError,
      );
    });

    it('passes args_json, the path after --, argv after a second --, and stdin (world-internals §8.2)', async () => {
      scenario({ run: { 'hello.ail': { exitCode: 0, stdout: '', stderr: ADMITTED } } });
      await binaryToolchain(bin).run(ctx, {
        path: 'hello.ail',
        args_json: '{"a":1}',
        stdin: '1\n2\n',
        argv: ['--caps=IO,Net', '-', '--'],
      });
      const [call] = invocations().filter((c) => c.argv[0] === 'run');
      expect([call!.argv, call!.stdin]).toEqual([
        [
          'run',
          '--policy',
          ctx.policyPath,
          '--args-json',
          '{"a":1}',
          '--',
          'hello.ail',
          '--',
          '--caps=IO,Net',
          '-',
          '--',
        ],
        '1\n2\n',
      ]);
    });

    it('writes a cap-set variant next to the episode policy (mode 0600) and verifies it before use', async () => {
      scenario({ run: { 'hello.ail': { exitCode: 0, stdout: '', stderr: ADMITTED } } });
      const out = await binaryToolchain(bin).run(ctx, { path: 'hello.ail', caps: ['IO'] });
      const variant = join(root, 'policies', 'ep1.FS-IO-fs0.toml');
      const text = readFileSync(variant, 'utf8');
      expect([
        statSync(variant).mode & 0o777,
        text.includes('FS = 0'),
        (out.policy as { digest: string }).digest,
      ]).toEqual([0o600, true, policyDigest(text)]);
      expect(invocations().map((c) => c.argv.slice(0, 3))).toEqual([
        ['policy-tool', '--policy', variant],
        ['run', '--policy', variant],
      ]);
    });

    it('kills the process group at the handler deadline', async () => {
      scenario({ run: { 'hello.ail': { mode: 'sleep' } } });
      const tc = binaryToolchain(bin);
      await tc.builtinsList(ctx); // verifies the policy first, so the deadline below is the run's alone
      await expect(tc.run({ ...ctx, deadlineMs: 1500 }, { path: 'hello.ail' })).rejects.toThrow(
        new ToolProcessError(
          'ailang run exceeded the handler deadline (1.5s); process group killed',
        ),
      );
      const [call] = invocations().filter((c) => c.argv[0] === 'run');
      expect(await deadWithin(call!.pid)).toBe(true);
    });

    it('returns when the tool exits even if a grandchild holds its pipes, and kills the grandchild (incident 13)', async () => {
      scenario({
        run: { 'hello.ail': { mode: 'grandchild', exitCode: 0, stdout: 'hi\n', stderr: ADMITTED } },
      });
      const out = await binaryToolchain(bin).run(
        { ...ctx, deadlineMs: 30_000 },
        { path: 'hello.ail' },
      );
      expect([out.admitted, out.stdout]).toEqual([true, 'hi\n']);
      const [call] = invocations().filter((c) => c.argv[0] === 'run');
      expect(await deadWithin(call!.grandchild!)).toBe(true);
    });

    it('kills the process group when output passes the cap', async () => {
      scenario({ run: { 'hello.ail': { mode: 'flood' } } });
      await expect(binaryToolchain(bin).run(ctx, { path: 'hello.ail' })).rejects.toThrow(
        new ToolProcessError(
          'ailang run exceeded the output cap (8388608 bytes per stream); process group killed',
        ),
      );
      const [call] = invocations().filter((c) => c.argv[0] === 'run');
      expect(await deadWithin(call!.pid)).toBe(true);
    });
  });
});
