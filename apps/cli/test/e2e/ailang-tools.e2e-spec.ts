/**
 * The AILANG tools end to end over MCP, in both run modes (packages/ailang/README.md): world-spec
 * §11 scenarios 17 and 18, every ailang-run outcome shape (a)–(d) of results-and-errors.txt with
 * exit codes, decision, limit, stdout and stderr, ailang-check, builtins-search, examples-search
 * and ailang-cli, and the demo project of `pnpm start`.
 *
 * The invocation deadline is shortened to 10 s, so the derived AILANG policy timeout is 4 s
 * (deadlineTable: handler 5 s − finish 1 s) and the endless loop is stopped sooner.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deadlineTable } from '@world/contracts';
import { EMBEDDED_VERSION, NO_CORPUS_REFUSAL } from '@world/ailang';
import { DEMO_TEMPLATE } from '../../src/system/demo.js';
import {
  FULL_GRANTS,
  HELLO_AIL,
  MODES,
  startTestSystem,
  type TestSystem,
} from '../support/system.js';

const DEADLINE_MS = 10_000;
const POLICY_TIMEOUT_MS = deadlineTable(DEADLINE_MS).policyTimeoutMs;
const SHA = /^sha256:[0-9a-f]{64}$/;
// startTestSystem puts WORLD_HOME at <tmp>/home and the worktrees at <tmp>/ws/<episode>.
const POLICY_FROM_WORKTREE = '../../home/policies/ep1.toml';

const ESCAPE_AIL =
  'module escape\n\nimport std/fs (readFile)\nimport std/io (println)\n\nexport func main() -> () ! {IO, FS} {\n  println(readFile("/etc/hosts"))\n}\n';
const NET_AIL =
  'module net\n\nimport std/io (println)\n\nexport func main() -> () ! {IO, Net} {\n  println("net")\n}\n';
const LOOP_AIL =
  'module loop\n\nimport std/io (println)\n\npure func spin(n: int) -> int = spin(n + 1)\n\nexport func main() -> () ! {IO} {\n  println("starting")\n  println(show(spin(0)))\n}\n';
/** Prints 1,200 lines of 1,000 bytes: 1.2 MB, over the 1 MiB invocation output cap. */
const BIG_AIL = `module big\n\nimport std/io (print)\n\nfunc emit(n: int) -> () ! {IO} {\n  if n == 0 then () else {\n    print("${'x'.repeat(999)}\\n");\n    emit(n - 1)\n  }\n}\n\nexport func main() -> () ! {IO} {\n  emit(1200)\n}\n`;
const BROKEN_AIL =
  'module broken\n\nimport std/io (println)\n\nexport func main() -> () ! {IO} {\n  let x = "a" + 1;\n  println(show(x))\n}\n';

/** Reads the demo template the way `pnpm start` copies it. */
function demoFiles(dir = DEMO_TEMPLATE, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) Object.assign(files, demoFiles(join(dir, e.name), rel));
    else files[rel] = readFileSync(join(dir, e.name), 'utf8');
  }
  return files;
}

describe.each(MODES)('the AILANG tools over MCP (%s mode)', (mode) => {
  let w: TestSystem;
  let token: string;
  let worktree: string;

  beforeAll(async () => {
    w = await startTestSystem(mode, { callDeadlineMs: DEADLINE_MS });
    worktree = await w.episode('ep1', {
      'hello.ail': HELLO_AIL,
      'escape.ail': ESCAPE_AIL,
      'net.ail': NET_AIL,
      'loop.ail': LOOP_AIL,
      'broken.ail': BROKEN_AIL,
      'big.ail': BIG_AIL,
    });
    token = await w.session('ep1', FULL_GRANTS);
  });
  afterAll(async () => {
    await w?.close();
  });

  const policyLine = (stderr: string) => {
    const lines = stderr.split('\n').filter((l) => l.startsWith('policy: '));
    expect(lines.length).toBe(1);
    return JSON.parse(lines[0]!.slice('policy: '.length)) as Record<string, unknown>;
  };

  it("scenario 17: a denied check is the finish phase's denial shape", async () => {
    const zero = await w.session('ep1', [{ effect: 'Ailang.Check', scope: 'worktree', budget: 0 }]);
    expect(await w.call(zero, 'ailang-check', { path: 'hello.ail' })).toEqual({
      ok: false,
      status: 'denied',
      refused: 'the Ailang.Check effect ended denied',
      world: {
        effects: [{ id: 'e1', status: 'denied', record: expect.stringMatching(SHA) }],
        plan: expect.stringMatching(SHA),
      },
    });
  });

  it('scenario 18: ailang-run refuses bad caps, argv and args_json in its plan', async () => {
    const refused = async (args: Record<string, unknown>) =>
      (await w.call(token, 'ailang-run', args)).refused;
    expect(await refused({ path: 'x.ail', caps: ['IO', 'Env', 'Net'] })).toBe(
      'caps names both Env and Net; one run takes at most one of them',
    );
    expect(await refused({ path: 'x.ail', caps: ['IO', 'IO'] })).toBe(
      'capability "IO" is listed twice',
    );
    expect(await refused({ path: 'x.ail', caps: [] })).toBe('argument "caps" names no capability');
    expect(await refused({ path: 'x.ail', caps: ['Process'] })).toBe(
      'unknown capability "Process"; caps admits only: Clock, Declassify, Env, FS, IO, Net',
    );
    expect(await refused({ path: 'x.ail', argv: Array.from({ length: 33 }, () => 'a') })).toBe(
      'argument "argv" has 33 items; the limit is 32',
    );
    expect(await refused({ path: 'x.ail', args_json: '{not json' })).toBe(
      'argument "args_json" must be a string holding JSON',
    );
    const out = (await w.call(token, 'ailang-run', {
      path: 'hello.ail',
      caps: ['IO', 'FS', 'Env'],
    })) as Record<string, any>;
    const plan = await w.payload(out.world.plan, token);
    expect(plan.effects).toEqual([
      {
        id: 'e1',
        effect: 'Ailang.RunEnv',
        scope: 'worktree',
        cost: 1,
        payload: { path: 'hello.ail', caps: ['Env', 'FS', 'IO'] },
      },
    ]);
  });

  it('(a) admitted: the program ran and stderr holds one policy line', async () => {
    const out = (await w.call(token, 'ailang-run', { path: 'hello.ail' })) as Record<string, any>;
    expect(out.admitted).toBe(true);
    expect(out.exit_code).toBe(0);
    expect(out.limit).toBeNull();
    expect(out.decision).toEqual({
      ok: true,
      function: 'main',
      declared_effects: ['IO'],
      allowed_caps: ['FS', 'IO'],
    });
    expect(out.stdout).toBe('hello from ailang-run\n');
    expect(out.stderr.endsWith('\n')).toBe(true);
    const policy = policyLine(out.stderr);
    // The toolchain's own lines name the worktree `.`: no host path reaches the agent.
    expect(policy).toMatchObject({
      ok: true,
      security_mode: 'restricted',
      timeout_ms: POLICY_TIMEOUT_MS,
      fs_sandbox: '.',
      // the policy file (<home>/policies/ep1.toml) by its path from the worktree (<ws>/ep1)
      policy: POLICY_FROM_WORKTREE,
    });
    expect(out.stderr).not.toContain(worktree);
    expect(out.policy).toEqual({
      digest: policy.policy_digest,
      security_mode: 'restricted',
      caps: ['FS', 'IO'],
      net_allow: [],
    });
    expect(out.world.effects[0].status).toBe('ok');
    expect(Object.keys(out).sort()).toEqual([
      'admitted',
      'decision',
      'exit_code',
      'limit',
      'policy',
      'stderr',
      'stdout',
      'world',
    ]);
  });

  it('(b) admitted, then refused at runtime: the escape is in stderr before the policy line', async () => {
    const out = (await w.call(token, 'ailang-run', { path: 'escape.ail' })) as Record<string, any>;
    expect([out.admitted, out.exit_code, out.limit, out.stdout]).toEqual([true, 1, null, '']);
    const [first, second] = out.stderr.split('\n');
    expect(first).toBe('Error: execution failed: readFile: path "/etc/hosts" escapes sandbox "."');
    expect(second.startsWith('policy: {"ok":true')).toBe(true);
  });

  it('(c) refused before execution: effects beyond the policy, and a missing file', async () => {
    const net = (await w.call(token, 'ailang-run', { path: 'net.ail' })) as Record<string, any>;
    expect([net.admitted, net.exit_code, net.limit, net.stderr]).toEqual([false, 2, null, '']);
    expect(net.decision).toEqual({
      ok: false,
      error_kind: 'policy_violation',
      message: 'declared effects exceed policy',
      function: 'main',
      declared_effects: ['IO', 'Net'],
      allowed_caps: ['FS', 'IO'],
      missing_from_policy: ['Net'],
    });
    expect(JSON.parse(net.stdout).policy).toBe(POLICY_FROM_WORKTREE);
    const nope = (await w.call(token, 'ailang-run', { path: 'nope.ail' })) as Record<string, any>;
    expect([nope.admitted, nope.exit_code]).toEqual([false, 1]);
    expect(nope.decision).toMatchObject({
      ok: false,
      error_kind: 'read_failed',
      message: 'open nope.ail: no such file or directory',
    });
    const broken = (await w.call(token, 'ailang-run', { path: 'broken.ail' })) as Record<
      string,
      any
    >;
    expect([broken.admitted, broken.exit_code, broken.decision.error_kind]).toEqual([
      false,
      2,
      'typecheck_failed',
    ]);
  });

  it('(d) supervisor limit: the endless loop is stopped at the policy timeout', async () => {
    const out = (await w.call(token, 'ailang-run', { path: 'loop.ail' })) as Record<string, any>;
    expect([out.admitted, out.exit_code, out.stdout]).toEqual([true, 3, 'starting\n']);
    expect(out.limit).toMatchObject({ reason: 'timeout', stage: 'execute' });
    expect(out.stderr).toContain(`policy-result: `);
    expect(out.world.effects[0].status).toBe('ok');
  });

  it('a run printing more than the 1 MiB output cap keeps its outcome with the head of stdout, marked truncated', async () => {
    const out = (await w.call(token, 'ailang-run', { path: 'big.ail' })) as Record<string, any>;
    const line = `${'x'.repeat(999)}\n`;
    expect([
      out.admitted,
      out.exit_code,
      out.limit,
      out.stdout_truncated,
      out.stderr_truncated,
      out.stdout.length > 900_000 && out.stdout.length < 1_048_576,
      line.repeat(1200).startsWith(out.stdout),
      out.world.effects[0].status,
    ]).toEqual([true, 0, null, true, false, true, true, 'ok']);
  });

  it('ailang-check reports a pass and a type error through its finish phase', async () => {
    expect(await w.call(token, 'ailang-check', { path: 'hello.ail' })).toEqual({
      ok: true,
      passed: true,
      error_count: 0,
      errors: [],
      world: {
        effects: [{ id: 'e1', status: 'ok', record: expect.stringMatching(SHA) }],
        plan: expect.stringMatching(SHA),
      },
    });
    const broken = (await w.call(token, 'ailang-check', { path: 'broken.ail' })) as Record<
      string,
      any
    >;
    expect([broken.ok, broken.passed, broken.error_count]).toEqual([true, false, 1]);
    expect(Object.keys(broken.errors[0]).sort()).toEqual(['code', 'file', 'message']);
    expect(broken.errors[0].file).toBe('broken.ail');
    expect(broken.errors[0].message).toContain('broken.ail:6:');
  });

  it('builtins-search finds println in std/io', async () => {
    expect(await w.call(token, 'builtins-search', { query: 'println' })).toEqual({
      count: 2,
      matches: [
        { effect: 'io', module: 'std/io', name: '_io_eprintln' },
        { effect: 'io', module: 'std/io', name: '_io_println' },
      ],
      world: expect.objectContaining({ plan: expect.stringMatching(SHA) }),
    });
  });

  it('examples-search without a corpus is the handler refusal of §3.7', async () => {
    const out = (await w.call(token, 'examples-search', { query: 'hello' })) as Record<string, any>;
    expect([out.ok, out.refused]).toEqual([false, NO_CORPUS_REFUSAL]);
    expect(out.world.effects[0].status).toBe('ok');
  });

  it('ailang-cli serves its ops, refuses write-capable and unknown ones', async () => {
    const version = (await w.call(token, 'ailang-cli', { op: 'version' })) as Record<string, any>;
    expect(version.ok).toBe(true);
    expect(version.stdout.split('\n')[0]).toBe(EMBEDDED_VERSION);
    expect(version.tool).toMatch(SHA);
    expect((await w.call(token, 'ailang-cli', { op: 'read' })).refused).toBe(
      'op "read" is not an ailang-cli op; reads, writes and edits have their own tools, and run is ailang-run',
    );
    expect(
      (await w.call(token, 'ailang-cli', { op: 'fmt', path: 'hello.ail', flags: { write: '' } }))
        .refused,
    ).toBe(
      'op "fmt" flag "write" writes the worktree; ailang-cli never writes (fmt without it returns the formatted text; write it with ailang-write)',
    );
    expect(
      (await w.call(token, 'ailang-cli', { op: 'check', path: 'hello.ail', flags: { zz: '' } }))
        .refused,
    ).toBe('op check does not admit flag --zz (admitted: --json --quiet --strict-syntax)');
  });

  it('checks and runs the demo project of `pnpm start`', async () => {
    await w.episode('demo', demoFiles());
    const demo = await w.session('demo', FULL_GRANTS);
    for (const [file, stdout] of [
      ['hello.ail', 'hello from ailang-run\n'],
      ['sum.ail', 'total: 15\n'],
    ] as const) {
      expect((await w.call(demo, 'ailang-check', { path: file })).passed).toBe(true);
      const run = (await w.call(demo, 'ailang-run', { path: file })) as Record<string, any>;
      expect([run.admitted, run.exit_code, run.stdout]).toEqual([true, 0, stdout]);
    }
  });
});
