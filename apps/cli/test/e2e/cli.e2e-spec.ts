/**
 * The `world` command end to end (world-spec §7.3, §7.4): the built CLI runs as a
 * real process against a whole World booted in this process, in both run modes. Every verb's
 * output and exit code; `why` over an intact call from every kind of target, over a REST commit,
 * over a result on stdin, and over an output whose stored bytes were altered in the database;
 * the live tail.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  entryHash,
  makeJsonObject,
  refOf,
  toWireObject,
  worldRef,
  type Ref,
} from '@world/canonical';
import { credentialIdOf, LOG_STREAM_MARGIN_MS, MESSAGES } from '@world/contracts';
import { requireBuiltCli, runCli, startCli, type CliRun } from '../support/cli.js';
import { startTestSystem, type Mode, type TestSystem } from '../support/system.js';

const REF = /^sha256:[0-9a-f]{64}$/;
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const short = (ref: string) => `${ref.slice(0, 15)}…`;
const hex8 = (ref: string) => ref.slice(7, 15);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const FIX =
  'fix: mint a live session (`world session mint --episode <ep> --grant EFFECT=SCOPE:BUDGET --out FILE`) and pass it with --session FILE or $WORLD_SESSION';
const ARGV_WARNING =
  'world: warning: --session holds the token itself, which other users can read in the process list; prefer a file (mode 0600) or $WORLD_SESSION';
/**
 * Every CLI run starts a Node process that loads the whole command (~2 s of CPU); on a machine
 * shared with other suites a test may take minutes. Nothing here asserts a duration.
 */
const E2E_TIMEOUT_MS = 300_000;
/** The seven link names of an effectful call, in print order (world-spec §7.3 example). */
const SEVEN = ['world', 'entry', 'record', 'input', 'plan', 'effect', 'output'];

/** Asserts an exit code, showing the run's stderr when it differs. */
function expectExit(r: CliRun, code: number): void {
  expect({ code: r.code, stderr: r.code === code ? '(as expected)' : r.stderr }).toEqual({
    code,
    stderr: '(as expected)',
  });
}

/** Replaces an object's stored payload in the ledger's table, as an attacker with database access would. */
async function alterStoredPayload(w: TestSystem, ref: string, text: string): Promise<number> {
  const sql = 'UPDATE ledger.objects SET payload = convert_to($1, $2) WHERE hash = $3';
  const client = new pg.Client({ connectionString: w.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, [text, 'UTF8', ref])).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * The CLI is a client of the gateway's HTTP surfaces, which behave the same in both run modes
 * (the conformance, A2A, AILANG and REST suites run each mode); one system serves these tests:
 * distributed, so the tampering test alters the stored bytes in PostgreSQL itself (DESIGN.md §3).
 */
const CLI_MODES: Mode[] = ['distributed'];
/** A short stream run, so the follow test sees a reconnect within seconds (default 18 s). */
const STREAM_RUN_MS = 2_000;

describe.each(CLI_MODES)('the world command (%s mode)', (mode) => {
  let w: TestSystem;
  let env: Record<string, string>;
  let dir: string;
  let src: string;
  let sessionFile: string;
  let token: string;
  let secondToken: string;
  let jsonOut: string;
  let t1: { index: number; worldRef: string };

  const world = (
    args: string[],
    extra: Record<string, string> = {},
    stdin?: string,
  ): Promise<CliRun> => runCli(args, { ...env, ...extra }, { stdin });
  const headIndex = async () =>
    (await w.get(`/v1/worlds/${(await w.get('/v1/head')).text}`)).json.revision as number;
  const entry = async (i: number) => (await w.get(`/v1/log/${i}`)).json;
  const payloadBytes = async (ref: string) =>
    Buffer.from((await w.get(`/v1/objects/${ref}?payload=true`)).json.payload, 'base64');
  const json = async (ref: string) => JSON.parse((await payloadBytes(ref)).toString('utf8'));
  /** The §7.3 tail line of entry i, read through the harness. */
  const tailLineOf = async (i: number) => {
    const e = await entry(i);
    const head = `#${i} ${hex8(e.entryHash)} ${e.header.writtenBy}`;
    const envelope = (await w.get(`/v1/objects/${e.transitionRef}`)).json;
    if (envelope.semanticId !== 'world/invocation-record/v2') return head;
    const record = await json(e.transitionRef);
    const effects = [];
    for (const ref of record.effects) {
      const r = await json(ref);
      effects.push(`${r.effect} ${r.allowed ? (r.failed ? 'failed' : 'ok') : 'denied'}`);
    }
    return `${head} ${record.episodeId} ${record.skillId} [${effects.length === 0 ? 'no effects' : effects.join(', ')}]`;
  };

  beforeAll(async () => {
    requireBuiltCli();
    w = await startTestSystem(mode, { logStreamRunMs: STREAM_RUN_MS });
    env = { WORLD_URL: w.url, WORLD_HOME: w.paths.home };
    dir = await mkdtemp(join(tmpdir(), `world-cli-${mode}-`));
    src = join(dir, 'src');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'notes.txt'), 'first line\n');
    await writeFile(join(src, 'data.txt'), 'data for t1\n');
    await writeFile(join(src, 'sub', 'deep.txt'), 'deep\n');
    sessionFile = join(dir, 'ep1.session');
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await w?.close();
    await rm(dir, { recursive: true, force: true });
  }, E2E_TIMEOUT_MS);

  it(
    'health prints GET /v1/health as served and exits 0',
    async () => {
      const r = await world(['health']);
      const vkey = (await w.get('/.well-known/world-log-key', null)).text.trim();
      expect(vkey).toMatch(/^world\.local\/log-[0-9a-f]{16}\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
      expect(r).toEqual({
        code: 0,
        signal: null,
        stdout: `${(await w.get('/v1/health', null)).text}\nlog key: ${vkey}\n`,
        stderr: '',
      });
      expect(JSON.parse(lines(r.stdout)[0]!)).toEqual({
        status: 'ok',
        daemon_version: '0.1.0',
        db_path: expect.any(String),
        interpreter_ref: expect.stringMatching(REF),
        interpreter_version: `@world/planner 0.1.0 (node ${process.version})`,
      });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'episode create copies --from DIR into a new worktree; creating it again says it exists',
    async () => {
      const worktree = join(w.paths.workspaceRoot, 'ep1');
      const r = await world(['episode', 'create', 'ep1', '--from', src]);
      expect(r).toEqual({
        code: 0,
        signal: null,
        stdout: `created episode ep1 (worktree ${worktree})\n`,
        stderr: '',
      });
      expect(await readFile(join(worktree, 'notes.txt'), 'utf8')).toBe('first line\n');
      expect(await readFile(join(worktree, 'sub', 'deep.txt'), 'utf8')).toBe('deep\n');
      const again = await world(['episode', 'create', 'ep1', '--from', src]);
      expect(again).toEqual({
        code: 0,
        signal: null,
        stdout: `episode ep1 already exists (worktree ${worktree})\n`,
        stderr: '',
      });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'session mint --out writes the token once, mode 0600, and never prints it',
    async () => {
      const args = [
        'session',
        'mint',
        '--episode',
        'ep1',
        '--grant',
        'Workspace.Read=worktree:20',
        '--grant',
        'Workspace.Write=worktree:5',
        '--ttl',
        '900',
        '--out',
        sessionFile,
      ];
      const r = await world(args);
      const written = await readFile(sessionFile, 'utf8');
      expect(written).toMatch(/^[0-9a-f]{64}\n$/);
      token = written.trim();
      expectExit(r, 0);
      expect(r.stdout).toMatch(
        new RegExp(
          `^minted session credential for episode ep1: 2 grant\\(s\\), expires ${ISO}, written to ${escape(sessionFile)}\\n$`,
        ),
      );
      expect(r.stderr).toBe(`credential_id=${credentialIdOf(token)}\n`);
      expect((await stat(sessionFile)).mode & 0o777).toBe(0o600);

      const again = await world(args);
      expect(again).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `world: --out ${sessionFile} exists; a session file is written once (remove it or choose another path)\n`,
      });
      expect(await readFile(sessionFile, 'utf8')).toBe(written);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'session mint without --out prints the token once on stdout and its id on stderr',
    async () => {
      const r = await world([
        'session',
        'mint',
        '--episode',
        'ep1',
        '--grant',
        'Workspace.Read=worktree:3',
      ]);
      expectExit(r, 0);
      expect(r.stdout).toMatch(/^[0-9a-f]{64}\n$/);
      secondToken = r.stdout.trim();
      expect(r.stderr).toMatch(
        new RegExp(
          `^minted session credential for episode ep1: 1 grant\\(s\\), expires ${ISO}\\ncredential_id=${credentialIdOf(secondToken)}\\n$`,
        ),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'session list shows each session of the episode with its state and grants',
    async () => {
      const r = await world(['session', 'list', '--episode', 'ep1']);
      expectExit(r, 0);
      const rows = lines(r.stdout);
      expect(rows.at(-1)).toBe('2 session(s)');
      const row = (id: string) => rows.find((l) => l.startsWith(`${id}  `));
      expect(row(credentialIdOf(token))).toMatch(
        new RegExp(
          `^${credentialIdOf(token)}  ep1  live  expires ${ISO}  Workspace\\.Read=worktree:20,Workspace\\.Write=worktree:5$`,
        ),
      );
      expect(row(credentialIdOf(secondToken))).toMatch(
        new RegExp(
          `^${credentialIdOf(secondToken)}  ep1  live  expires ${ISO}  Workspace\\.Read=worktree:3$`,
        ),
      );
      expect(
        rows
          .slice(0, -1)
          .map((l) => l.slice(0, 64))
          .sort(),
      ).toEqual([credentialIdOf(token), credentialIdOf(secondToken)].sort());
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'tools list prints the session’s tools, their required arguments and a count',
    async () => {
      const listed = (await w.mcp(token, 'tools/list', {})).body!.result!.tools as Array<{
        name: string;
        inputSchema: { required?: string[] };
      }>;
      const r = await world(['tools', 'list', '--session', sessionFile]);
      expectExit(r, 0);
      expect(r.stderr).toBe('');
      const rows = lines(r.stdout);
      expect(rows.at(-1)).toBe(`${listed.length} tool(s)`);
      expect(rows.slice(0, -1).map((l) => l.split(' ')[0])).toEqual(listed.map((t) => t.name));
      expect(rows.slice(0, -1).map((l) => l.slice(l.lastIndexOf('  required: ') + 2))).toEqual(
        listed.map(
          (t) =>
            `required: ${t.inputSchema.required?.length ? t.inputSchema.required.join(', ') : '(none)'}`,
        ),
      );
      const asJson = await world(['tools', 'list', '--json'], { WORLD_SESSION: sessionFile });
      expect(JSON.parse(asJson.stdout).map((t: { name: string }) => t.name)).toEqual(
        listed.map((t) => t.name),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'call prints the result fields, the output ref and the world block, and exits 0',
    async () => {
      const r = await world([
        'call',
        'ailang-read',
        '--arg',
        'path=notes.txt',
        '--session',
        sessionFile,
      ]);
      const e = await entry(await headIndex());
      const record = await json(e.transitionRef);
      const bytes = await payloadBytes(record.output);
      const output = JSON.parse(bytes.toString('utf8'));
      expect(r).toEqual({
        code: 0,
        signal: null,
        stderr: '',
        stdout: [
          'content: "first line\\n"',
          'ok: true',
          `policy_digest: "${output.policy_digest}"`,
          `tool: "${output.tool}"`,
          `output: ${record.output} (${bytes.length} bytes)`,
          `plan: ${record.plan}`,
          `effect e1 ok ${record.effects[0]}`,
          '',
        ].join('\n'),
      });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'call --json-out prints the committed output bytes exactly, plus one newline',
    async () => {
      const r = await world(
        ['call', 'ailang-read', '--json', '{"path":"notes.txt"}', '--json-out'],
        { WORLD_SESSION: sessionFile },
      );
      expectExit(r, 0);
      expect(r.stdout.endsWith('}\n')).toBe(true);
      jsonOut = r.stdout;
      const bytes = Buffer.from(r.stdout.slice(0, -1), 'utf8');
      const head = (await w.get(`/v1/worlds/${(await w.get('/v1/head')).text}`)).json;
      expect(refOf(bytes)).toBe(head.stateRoot);
      expect(bytes.equals(await payloadBytes(head.stateRoot))).toBe(true);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'call commits a refusal (exit 0) that --strict turns into exit 3',
    async () => {
      const refused =
        'path "../x" refused: it must be relative and non-empty, with no ".." segment and no leading "-"';
      const [plain, strict] = await Promise.all([
        world(['call', 'ailang-read', '--arg', 'path=../x', '--session', sessionFile]),
        world(['call', 'ailang-read', '--arg', 'path=../x', '--session', sessionFile, '--strict']),
      ]);
      for (const r of [plain, strict]) {
        expect(lines(r.stdout)).toEqual([
          'ok: false',
          `refused: ${JSON.stringify(refused)}`,
          expect.stringMatching(/^output: sha256:[0-9a-f]{64} \(\d+ bytes\)$/),
          expect.stringMatching(/^plan: sha256:[0-9a-f]{64}$/),
          'effects: none',
        ]);
      }
      expect([plain.code, strict.code]).toEqual([0, 3]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'call with --task-id commits once; reusing the id for other arguments is refused (-32602) and moves no head',
    async () => {
      const r = await world([
        'call',
        'ailang-read',
        '--arg',
        'path=data.txt',
        '--task-id',
        't1',
        '--session',
        sessionFile,
      ]);
      expectExit(r, 0);
      const index = await headIndex();
      t1 = { index, worldRef: (await w.get('/v1/head')).text };
      const [reuse, unknown] = await Promise.all([
        world([
          'call',
          'ailang-read',
          '--arg',
          'path=notes.txt',
          '--task-id',
          't1',
          '--session',
          sessionFile,
        ]),
        world(['call', 'no-such-tool', '--session', sessionFile]),
      ]);
      expect(reuse).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr:
          'world: tools/call ailang-read refused (MCP -32602): task id already used in this session\n',
      });
      expect(unknown).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr:
          'world: tools/call no-such-tool refused (MCP -32602): unknown tool "no-such-tool"\n',
      });
      expect(await headIndex()).toBe(index);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'why walks an intact call from every kind of target: every link ✓, exit 0',
    async () => {
      const e = await entry(t1.index);
      const record = await json(e.transitionRef);
      const effect = await json(record.effects[0]);
      const targets: Array<[string, string]> = [
        [String(t1.index), `why: entry ${t1.index}`],
        ['head', `why: entry ${t1.index} (the head)`],
        ['mcp:ep1:t1', `why: entry ${t1.index} (invocation mcp:ep1:t1)`],
        [t1.worldRef, `why: entry ${t1.index} (world ${short(t1.worldRef)})`],
        [e.transitionRef, `why: entry ${t1.index} (matched by record ${short(e.transitionRef)})`],
        [record.input, `why: entry ${t1.index} (matched by input ${short(record.input)})`],
        [record.output, `why: entry ${t1.index} (matched by output ${short(record.output)})`],
        [record.plan, `why: entry ${t1.index} (matched by plan ${short(record.plan)})`],
        [
          record.effects[0],
          `why: entry ${t1.index} (matched by effect record ${short(record.effects[0])})`,
        ],
        [
          effect.requestRef,
          `why: entry ${t1.index} (matched by request ${short(effect.requestRef)})`,
        ],
        [effect.resultRef, `why: entry ${t1.index} (matched by result ${short(effect.resultRef)})`],
      ];
      const runs = await Promise.all(targets.map(([target]) => world(['why', target])));
      for (const [i, r] of runs.entries()) {
        const out = lines(r.stdout);
        expect([targets[i]![0], r.code, r.stderr, out[0]]).toEqual([
          targets[i]![0],
          0,
          '',
          targets[i]![1],
        ]);
        expect(out.slice(1, -1).map((l) => l.slice(0, 12))).toEqual(
          [...SEVEN, 'log'].map((n) => `  ✓ ${n.padEnd(8)}`),
        );
        expect(out.at(-1)).toBe('all 8 link(s) verified');
      }
      const walked = lines(runs[0]!.stdout);
      expect(walked[4]).toBe(`  ✓ input   ${short(record.input)}  {"path":"data.txt"}`);
      expect(walked[5]).toBe(
        `  ✓ plan    ${short(record.plan)}  1 effect(s): e1 Workspace.Read@worktree cost 1`,
      );
      expect(walked[6]).toMatch(
        new RegExp(
          `^  ✓ effect  ${escape(short(record.effects[0]))}  e1 allowed Workspace.Read@worktree cost 1 budget \\d+→\\d+ request \\d+ B result \\d+ B$`,
        ),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'why - (or --result FILE) finds a result by the sha256 of its canonical JSON and confirms its exact bytes',
    async () => {
      const resultFile = join(dir, 'result.json');
      await writeFile(resultFile, jsonOut);
      const [r, fromFile] = await Promise.all([
        world(['why', '-'], {}, jsonOut),
        world(['why', '--result', resultFile]),
      ]);
      expect(fromFile).toEqual(r);
      const out = lines(r.stdout);
      expectExit(r, 0);
      expect(out[0]).toMatch(/^why: entry \d+ \(matched by output \(sha256 of the result\)\)$/);
      expect(out[7]).toBe(
        `  ✓ output  ${short(refOf(jsonOut.slice(0, -1)))}  ${Buffer.byteLength(jsonOut) - 1} B = world.stateRoot; your result is these exact bytes`,
      );
      expect(out.at(-1)).toBe('all 8 link(s) verified');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'why rest:ID walks a REST commit through its receipt',
    async () => {
      const headRef = (await w.get('/v1/head')).text as Ref;
      const head = (await w.get(`/v1/worlds/${headRef}`)).json;
      const state = makeJsonObject('world/demo/state', 'operator/quickstart', {
        note: 'committed over REST',
        mode,
      });
      const header = {
        entryIndex: head.revision + 1,
        semanticsEpoch: 1,
        transitionFn: state.hash,
        interpreter: state.hash,
        prevEntryHash: head.logHead,
        writtenBy: 'operator/quickstart',
      };
      const hash = entryHash(header, state.hash);
      const shape = { revision: head.revision + 1, stateRoot: state.hash, logHead: hash };
      const nextWorld = { ref: worldRef(shape), ...shape };
      const res = await fetch(`${w.url}/v1/commit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.operatorToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          invocationId: 'rest:cli-1',
          observedHead: headRef,
          objects: [toWireObject(state)],
          nextWorld,
          entry: { header, entryHash: hash, transitionRef: state.hash },
        }),
      });
      expect(res.status).toBe(200);
      const r = await world(['why', 'rest:cli-1']);
      expectExit(r, 0);
      const origin = (await w.get('/.well-known/world-log-key', null)).text.split('+')[0];
      expect(lines(r.stdout)).toEqual([
        `why: entry ${header.entryIndex} (receipt rest:cli-1 → world ${short(nextWorld.ref)})`,
        `  ✓ world   ${short(nextWorld.ref)}  revision ${shape.revision}, stateRoot ${short(state.hash)}, logHead ${short(hash)} (recomputed)`,
        `  ✓ entry   ${short(hash)}  #${header.entryIndex} writtenBy operator/quickstart prev ${short(head.logHead)} transitionFn ${short(state.hash)} interpreter ${short(state.hash)} (not the planner's current pin)`,
        `  ✓ record  ${short(state.hash)}  world/demo/state (not an invocation record: nothing more to walk)`,
        `  ✓ output  ${short(state.hash)}  ${state.payload.length} B = world.stateRoot`,
        `  ✓ log     ${short(hash)}  entry ${header.entryIndex} ∈ signed checkpoint ${header.entryIndex + 1} (${origin})`,
        'all 5 link(s) verified',
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'why exits 1 when the target names nothing committed',
    async () => {
      const nothing = refOf(`nothing ${mode}`);
      const [index, ref, invocation, receipt] = await Promise.all([
        world(['why', '99999']),
        world(['why', nothing]),
        world(['why', 'mcp:ep1:never', '--scan', '3']),
        world(['why', 'rest:never']),
      ]);
      expect(index).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: 'world: log entry 99999 not found\n',
      });
      expect(ref).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `world: ${nothing}: no object or world has this ref\n`,
      });
      expect(invocation).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: 'world: mcp:ep1:never: no committed invocation record has this id\n',
      });
      expect(receipt).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: 'world: rest:never: receipt is not-started; nothing committed under it\n',
      });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'log tail prints one §7.3 line per entry from --from to the head; --raw prints the entries',
    async () => {
      const head = await headIndex();
      const from = head - 4;
      const [text, raw, last20] = await Promise.all([
        world(['log', 'tail', '--from', String(from)]),
        world(['log', 'tail', '--from', String(from), '--raw'], { WORLD_SESSION: sessionFile }),
        world(['log', 'tail']),
      ]);
      const expected = [];
      for (let i = from; i <= head; i++) expected.push(await tailLineOf(i));
      expect(expected[0]).toMatch(
        /^#\d+ [0-9a-f]{8} coordinator:mcp ep1 ailang-read \[Workspace\.Read ok\]$/,
      );
      expect(text).toEqual({
        code: 0,
        signal: null,
        stdout: `${expected.join('\n')}\n`,
        stderr: '',
      });
      const entries = [];
      for (let i = from; i <= head; i++) entries.push(JSON.stringify(await entry(i)));
      expect(raw).toEqual({ code: 0, signal: null, stdout: `${entries.join('\n')}\n`, stderr: '' });
      expect(lines(last20.stdout).map((l) => Number(l.slice(1, l.indexOf(' '))))).toEqual(
        Array.from({ length: Math.min(20, head + 1) }, (_, k) => Math.max(0, head - 19) + k),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'log tail --follow prints each entry committed after it started, once, across stream runs',
    async () => {
      const start = (await headIndex()) + 1;
      const tail = startCli(['log', 'tail', '--follow', '--from', String(start)], {
        ...env,
        WORLD_SESSION: sessionFile,
      });
      try {
        await w.call(token, 'ailang-read', { path: 'notes.txt' });
        await w.call(token, 'ailang-read', { path: 'sub/deep.txt' });
        await tail.untilLines(2);
        await w.call(token, 'ailang-read', { path: '../refused' });
        const seen = await tail.untilLines(3);
        const expected = [
          await tailLineOf(start),
          await tailLineOf(start + 1),
          await tailLineOf(start + 2),
        ];
        expect(expected[2]).toBe(
          `#${start + 2} ${hex8((await entry(start + 2)).entryHash)} coordinator:mcp ep1 ailang-read [no effects]`,
        );
        expect(seen).toEqual(expected);
        // The gateway ends a stream run after STREAM_RUN_MS; the run that carried these
        // lines began before them, so an entry committed after this wait arrives on a later run.
        await new Promise((resolve) => setTimeout(resolve, STREAM_RUN_MS + LOG_STREAM_MARGIN_MS));
        await w.call(token, 'ailang-read', { path: 'data.txt' });
        expect(await tail.untilLines(4)).toEqual([...expected, await tailLineOf(start + 3)]);
      } finally {
        expect(await tail.stop()).toEqual({ code: 0, signal: null });
      }
      expect(tail.stderr()).toBe('');
      expect(tail.lines).toHaveLength(4);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'session revoke makes the next call print the refusal and a fix, exit 1; an unknown id exits 1',
    async () => {
      const id = credentialIdOf(secondToken);
      const r = await world(['session', 'revoke', id]);
      expect(r).toEqual({
        code: 0,
        signal: null,
        stdout: `revoked session credential ${id}\n`,
        stderr: '',
      });
      const unknownId = credentialIdOf('f'.repeat(64));
      const [refused, unknown] = await Promise.all([
        world(['tools', 'list', '--session', secondToken]),
        world(['session', 'revoke', unknownId]),
      ]);
      expect(refused).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `${ARGV_WARNING}\nworld: session refused (HTTP 401): ${MESSAGES.sessionUnknown}\n${FIX}\n`,
      });
      expect(unknown).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr: `world: no session credential ${unknownId}; nothing to revoke (see \`world session list\`)\n`,
      });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'call commits a denial (no ok field: the budget is spent) that --strict turns into exit 3',
    async () => {
      await w.episode('strict-ep', { 'a.txt': 'a\n' });
      const spent = await w.session('strict-ep', [
        { effect: 'Workspace.Read', scope: 'worktree', budget: 0 },
      ]);
      const denied = join(dir, 'spent.session');
      await writeFile(denied, `${spent}\n`, { mode: 0o600 });
      const [plain, strict] = await Promise.all([
        world(['call', 'ailang-read', '--arg', 'path=a.txt', '--session', denied]),
        world(['call', 'ailang-read', '--arg', 'path=a.txt', '--session', denied, '--strict']),
      ]);
      for (const r of [plain, strict]) {
        expect(lines(r.stdout)).toEqual([
          expect.stringMatching(/^output: sha256:[0-9a-f]{64} \(\d+ bytes\)$/),
          expect.stringMatching(/^plan: sha256:[0-9a-f]{64}$/),
          expect.stringMatching(/^effect e1 denied sha256:[0-9a-f]{64}$/),
        ]);
        expect(r.stderr).toBe('');
      }
      expect([plain.code, strict.code]).toEqual([0, 3]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'why prints ✗ on the output link and exits 3 once the stored output bytes are altered, which World refuses to serve (DESIGN.md §3)',
    async () => {
      const call = await world([
        'call',
        'ailang-read',
        '--arg',
        'path=sub/deep.txt',
        '--session',
        sessionFile,
      ]);
      expect(call.code).toBe(0);
      const index = await headIndex();
      const record = await json((await entry(index)).transitionRef);
      const intact = await world(['why', String(index)]);
      expect([intact.code, lines(intact.stdout).at(-1)]).toEqual([0, 'all 8 link(s) verified']);

      const forged = '{"tampered":true}';
      expect(await alterStoredPayload(w, record.output, forged)).toBe(1);
      const r = await world(['why', String(index)]);
      const out = lines(r.stdout);
      expect([r.code, r.stderr]).toEqual([3, '']);
      expect(out.slice(1, 7).map((l) => l.slice(0, 12))).toEqual(
        SEVEN.slice(0, 6).map((n) => `  ✓ ${n.padEnd(8)}`),
      );
      expect(out[7]).toBe(
        `  ✗ output  ${short(record.output)}  the stored bytes were altered: World refuses to serve them (stored object corrupt: object ${record.output} has bytes that hash to ${refOf(forged)})`,
      );
      expect(out[8]!.slice(0, 12)).toBe('  ✓ log     ');
      expect(out[9]).toBe('1 of 8 link(s) broken');
    },
    E2E_TIMEOUT_MS,
  );
});

/** Usage errors never reach a World: each is refused before any request (exit 2). */
describe('the world command’s usage errors', () => {
  /** A --json @file whose bytes are not UTF-8 (0xff never occurs in UTF-8). */
  const badUtf8 = join(tmpdir(), `world-cli-bad-utf8-${process.pid}.json`);
  beforeAll(async () => {
    requireBuiltCli();
    await writeFile(badUtf8, Buffer.from([0x7b, 0x22, 0x70, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
  });
  afterAll(() => rm(badUtf8, { force: true }));
  const rows: Array<[string, string[], string]> = [
    [
      'episode create with two sources',
      ['episode', 'create', 'ep2', '--from', '.', '--git', '.'],
      'world: give at most one of --from and --git\n',
    ],
    [
      'episode create with a bad id',
      ['episode', 'create', 'Bad'],
      'world: episode id "Bad" must match ^[a-z0-9][a-z0-9-]{0,63}$\n',
    ],
    [
      'session mint without a grant',
      ['session', 'mint', '--episode', 'ep1'],
      'world: give at least one --grant EFFECT=SCOPE:BUDGET\n',
    ],
    [
      'session mint with a malformed grant',
      ['session', 'mint', '--episode', 'ep1', '--grant', 'Workspace.Read'],
      'world: grant "Workspace.Read" has no effect name; expected EFFECT=SCOPE:BUDGET\n',
    ],
    [
      'session revoke of a malformed id',
      ['session', 'revoke', 'abc'],
      'world: credential id "abc" must be 64 lowercase hex (see `world session list`)\n',
    ],
    [
      'tools list without a session',
      ['tools', 'list'],
      'world: no session: pass --session FILE|TOKEN or set $WORLD_SESSION\n',
    ],
    [
      'call mixing --json and --arg',
      ['call', 'ailang-read', '--json', '{}', '--arg', 'a=b'],
      'world: --json does not mix with --arg or --arg-json\n',
    ],
    [
      'call --json @file holding bytes that are not UTF-8',
      ['call', 'ailang-read', '--json', `@${badUtf8}`],
      `world: --json @${badUtf8}: not valid UTF-8 (malformed bytes are refused, not replaced)\n`,
    ],
    [
      'why with something that is not a target',
      ['why', 'latest'],
      'world: why: target "latest" must be an entry index, head, sha256:<ref>, a2a:<id>, mcp:<id>, rest:<id> or - (a result on stdin)\n',
    ],
  ];
  it(
    'refuses each with one line on stderr and exit 2',
    async () => {
      const runs = await Promise.all(
        rows.map(([, args]) => runCli(args, { WORLD_URL: 'http://127.0.0.1:9' })),
      );
      expect(runs.map((r, i) => [rows[i]![0], r.code, r.stdout, r.stderr])).toEqual(
        rows.map(([name, , stderr]) => [name, 2, '', stderr]),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'makes a missing required option or an unknown option a usage error too',
    async () => {
      const [missing, unknown] = await Promise.all([
        runCli(['session', 'mint', '--grant', 'Workspace.Read=worktree:1'], {}),
        runCli(['call', 'ailang-read', '--nope'], {}),
      ]);
      expect([missing.code, missing.stderr.split('\n')[0]]).toEqual([
        2,
        "error: required option '--episode <episode>' not specified",
      ]);
      expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([
        2,
        "error: unknown option '--nope'",
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});

describe('the world command’s help', () => {
  beforeAll(() => requireBuiltCli());

  const verbs = [
    ['episode', 'create'],
    ['session', 'mint'],
    ['session', 'revoke'],
    ['session', 'list'],
    ['tools', 'list'],
    ['call'],
    ['log', 'tail'],
    ['health'],
    ['why'],
    ['checkpoint'],
    ['proof'],
    ['verify'],
  ];
  it(
    'answers --help on every verb with its usage, exit 0',
    async () => {
      const runs = await Promise.all(verbs.map((v) => runCli([...v, '--help'], {})));
      expect(
        runs.map((r, i) => [
          verbs[i]!.join(' '),
          r.code,
          r.stdout.split('\n')[0]!.replace(/ \[options\].*$/, ''),
        ]),
      ).toEqual(verbs.map((v) => [v.join(' '), 0, `Usage: world ${v.join(' ')}`]));
    },
    E2E_TIMEOUT_MS,
  );
});
