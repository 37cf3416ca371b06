/**
 * Scale-out, proven natively (DESIGN.md §1, §2, §6): `world up --replicas
 * gateway=2,planner=2,broker=3,ledger=2` starts nine processes against the test PostgreSQL and
 * NATS, and official MCP clients (both SDK eras) drive them through both gateways.
 *
 * Every call is an `ailang-edit` that inserts its own task id as a line before the END marker of
 * its episode's journal.txt, so what ran is observable: a call run twice would leave its line
 * twice, and two calls of one episode running at once would lose a line (both read the file,
 * both write it back). Every call carries `_meta["world/taskId"]`, so its invocation id
 * (`mcp:<episode>:<task>`) is known to the test and failed calls can be resent safely.
 *
 * Each describe block starts its own World on a fresh database: the 400-call load at the default
 * deadline (every call must commit, even on a busy machine), then a broker and a planner
 * SIGKILLed mid-load at a 30 s deadline. An episode lease lasts EPISODE_LEASE_TTL_MS past its
 * holder's last renewal, so a call sent right after a kill to an episode the dead process held
 * commits within its lease wait (9 s at that deadline); the stall each kill caused (kill → lease
 * taken over, and kill → the probe's answer) is measured and printed, never asserted. Serialization is proven from the data
 * (file lines, intent ordinals, log order, lease fences).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import pg from 'pg';
import { entryHash, GENESIS_PREV_ENTRY_HASH, type Ref } from '@world/canonical';
import { CALL_DEADLINE_MS, deadlineTable, type ParsedRequestOf } from '@world/contracts';
import { connectRpc, type RpcClient } from '@world/runtime';
import {
  createTestDatabase,
  eventually,
  safeKill,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
} from '@world/testing';
import { SERVICES } from '../../src/system/up-args.js';
import { serviceEntry, startUp, type ServiceProcess, type UpSystem } from '../../src/system/up.js';

const REPLICAS = 'gateway=2,planner=2,broker=3,ledger=2';
/** The 400-call load runs at the default deadline: its calls must all commit on a busy machine. */
const DEADLINE_MS = CALL_DEADLINE_MS;
/**
 * The kill scenarios (where calls failing under load are classified, not forbidden) run at 30 s,
 * so a call's lease wait (9 s) outlasts what a kill leaves behind: the dead holder's lease
 * (EPISODE_LEASE_TTL_MS after its last renewal; a dead planner's call queued in a broker for it is
 * dropped at the lapse, its planner no longer answering its liveness subject).
 * Under the old 33 s lease the probes fail.
 */
const KILL_DEADLINE_MS = 30_000;
const KILL_DEADLINES = deadlineTable(KILL_DEADLINE_MS);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORKERS = 16;
const BROKERS = ['broker-1', 'broker-2', 'broker-3'];
const VICTIM = 'broker-2';
const MARK = '<<END>>\n';
const JOURNAL = 'journal.txt';
/**
 * MCP answers a host failure with -32603 `host callback failed` or `… timed out` (world-spec
 * §6.3); a keyed call whose outcome is unknown or whose effect ran unrecorded says so, as A2A
 * does (README "Exactly-once over MCP"). A resend of the same task id never runs twice.
 */
const HOST_FAILURE_CODE = -32603;
const HOST_FAILURE_TEXT =
  /(host callback (failed|timed out)|invocation outcome is not confirmed; resend the same task id|effects were requested but the invocation was not confirmed committed; effect records: .+)$/;
/** The gateway's own deadline ended first: HTTP 503 asking to retry (world-spec §5.1). */
const GATEWAY_DEADLINE = {
  code: 503,
  text: /the deadline ended before World answered; retry the request$/,
};
/** An error a caller may answer by resending with the same task id. */
const isRetryableFailure = (a: Answer) =>
  a.kind === 'error' &&
  ((a.code === HOST_FAILURE_CODE && HOST_FAILURE_TEXT.test(a.message)) ||
    (a.code === GATEWAY_DEADLINE.code && GATEWAY_DEADLINE.text.test(a.message)));

/** One planned tool call. */
interface Call {
  /** the task id, unique in the run; also the line the call inserts */
  id: string;
  worker: number;
  episode: string;
  /** which gateway (0 or 1) the worker talks to */
  gateway: number;
}
/** The structured output of a call: the handler's fields plus the world block (world-spec §4.2). */
type Output = Record<string, unknown> & {
  world: { effects: Array<{ id: string; status: string; record: string | null }>; plan: string };
};
/** A row of a test query: each query names its columns (pg returns bigint as text). */
type Row = Record<string, any>;
type Answer =
  | { call: Call; kind: 'result'; status: string; out: Output; seq: number }
  | { call: Call; kind: 'error'; code: number; message: string; seq: number };

const invocationOf = (c: Call) => `mcp:${c.episode}:${c.id}`;

/** Workers come in pairs: both workers of a pair drive the same episodes, one per gateway. */
const PAIRS = WORKERS / 2;

/**
 * `perEpisode` calls on each episode. Episode i belongs to worker pair i mod 8; its k-th call
 * goes to worker 2p + (k mod 2), which talks to gateway (k mod 2). A worker runs its calls one
 * after another, round-robin over its pair's episodes; the 16 workers run at once. So every
 * episode always has two calls racing for its lease, one through each gateway, and calls of
 * different episodes run in parallel. Task ids are `<prefix>-<episode index>-<k>`.
 */
function planCalls(prefix: string, episodes: string[], perEpisode: number): Call[] {
  const calls: Call[] = [];
  for (let k = 0; k < perEpisode; k++) {
    episodes.forEach((episode, i) => {
      const worker = 2 * (i % PAIRS) + (k % 2);
      calls.push({ id: `${prefix}-${i}-${k}`, worker, episode, gateway: k % 2 });
    });
  }
  return calls;
}

/** A port p such that p and p + 1 were both free a moment ago (two gateways on consecutive ports). */
async function consecutiveFreePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  // Below Linux's ephemeral range (32768–60999): an outgoing connection of a parallel suite
  // cannot be given port + 1 between this check and the second gateway's bind.
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await free(port)) && (await free(port + 1))) return port;
  }
}

/** An MCP client of either SDK era bound to one session. */
interface Caller {
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
    _meta: Record<string, unknown>;
  }): Promise<{ structuredContent?: unknown }>;
  close(): Promise<void>;
}

async function connectClient(url: string, token: string, era: 'v1' | 'v2'): Promise<Caller> {
  const headers = { authorization: `Bearer ${token}` };
  if (era === 'v1') {
    const client = new V1Client({ name: 'scale-v1', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(`${url}/mcp`), { requestInit: { headers } }));
    return client as unknown as Caller;
  }
  const client = new V2Client(
    { name: 'scale-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Transport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client as unknown as Caller;
}

/** Prometheus text → the summed value of `name` per label set matching `match`. */
function metric(text: string, name: string, match: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`).exec(line);
    if (m === null) continue;
    const labels = Object.fromEntries(
      [...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(match).every(([k, v]) => labels[k] === v)) sum += Number(m[2]);
  }
  return sum;
}

/**
 * Starts `world up --replicas gateway=2,planner=2,broker=3,ledger=2` with the given invocation deadline
 * on a fresh database and subject prefix for the enclosing describe block, warms it up, and
 * returns the helpers its tests drive and inspect it with (stopped again after the block).
 */
function useScaledWorld(label: string, callDeadlineMs: number) {
  let db: TestDatabase;
  let sql: pg.Client;
  let home: string;
  let up: UpSystem;
  let rpc: RpcClient;
  const prefix = uniquePrefix(label);
  /** every line of every process, in arrival order */
  const lines: Array<{ replica: string; line: string }> = [];
  const clients = new Map<string, Caller>();
  const tokens = new Map<string, string>();
  const worktrees = new Map<string, string>();

  const q = async <T = Row>(text: string, params: unknown[] = []): Promise<T[]> =>
    (await sql.query(text, params)).rows as T[];

  /** `effect executed` lines of the broker replicas: who ran (or denied) which invocation. */
  const executed = (from = 0) =>
    lines
      .slice(from)
      .filter((l) => l.line.includes('"msg":"effect executed"'))
      .map((l) => ({
        process: l.replica,
        ...(JSON.parse(l.line) as {
          replica: string;
          invocationId: string;
          episodeId: string;
          status: string;
          ordinal?: number;
        }),
      }));

  async function createEpisodes(ids: string[], budget: (id: string) => number): Promise<void> {
    const src = await mkdtemp(join(tmpdir(), 'world-scale-src-'));
    await writeFile(join(src, JOURNAL), MARK);
    for (const id of ids) {
      const ep = await rpc.request(
        'broker.episode.create',
        { episodeId: id, source: { kind: 'copy', dir: src } },
        { timeoutMs: 10_000 },
      );
      worktrees.set(id, ep.worktree);
      const minted = await rpc.request(
        'broker.session.mint',
        {
          episodeId: id,
          grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget: budget(id) }],
          ttlSeconds: 3600,
        },
        { timeoutMs: 10_000 },
      );
      tokens.set(id, minted.token);
    }
    await rm(src, { recursive: true, force: true });
  }

  async function clientFor(worker: number, episode: string, gateway: number): Promise<Caller> {
    const key = `${worker}/${episode}/${gateway}`;
    let client = clients.get(key);
    if (client === undefined) {
      client = await connectClient(
        up.gateways[gateway]!,
        tokens.get(episode)!,
        // Pairs alternate between the two SDK eras.
        (worker >> 1) % 2 === 0 ? 'v1' : 'v2',
      );
      clients.set(key, client);
    }
    return client;
  }

  async function callOnce(call: Call, answers: Answer[], client: Caller): Promise<Answer> {
    let answer: Answer;
    try {
      const res = await client.callTool({
        name: 'ailang-edit',
        arguments: { path: JOURNAL, old_text: MARK, new_text: `${call.id}\n${MARK}` },
        _meta: { 'world/taskId': call.id },
      });
      const out = res.structuredContent as Output;
      answer = {
        call,
        kind: 'result',
        status: out.world.effects[0].status,
        out,
        seq: answers.length,
      };
    } catch (err) {
      // A JSON-RPC error carries a numeric code; an HTTP failure is the SDK's SdkHttpError, whose
      // code is a string (CLIENT_HTTP_…) and whose HTTP status is `status`.
      const e = err as { code?: number | string; status?: number; message?: string };
      answer = {
        call,
        kind: 'error',
        code: typeof e.code === 'number' ? e.code : (e.status ?? 0),
        message: String(e.message),
        seq: answers.length,
      };
    }
    answers.push(answer);
    return answer;
  }

  /** Runs the workers at once, each through its calls in order; resolves with every answer. */
  async function drive(calls: Call[], answers: Answer[] = []): Promise<Answer[]> {
    const byWorker = new Map<number, Call[]>();
    for (const c of calls) byWorker.set(c.worker, [...(byWorker.get(c.worker) ?? []), c]);
    await Promise.all(
      [...byWorker.values()].map(async (list) => {
        for (const call of list)
          await callOnce(call, answers, await clientFor(call.worker, call.episode, call.gateway));
      }),
    );
    return answers;
  }

  /** The whole log: dense from 0, each entry linked to the previous, each hash recomputed. */
  async function checkLog(): Promise<number> {
    const rows = await q(
      'SELECT entry_index, entry_hash, semantics_epoch, transition_fn, interpreter, prev_entry_hash, written_by, transition_ref FROM ledger.log_entries ORDER BY entry_index',
    );
    const broken: string[] = [];
    rows.forEach((r, i) => {
      const prev = i === 0 ? GENESIS_PREV_ENTRY_HASH : rows[i - 1].entry_hash;
      const recomputed = entryHash(
        {
          entryIndex: Number(r.entry_index),
          semanticsEpoch: Number(r.semantics_epoch),
          transitionFn: r.transition_fn as Ref,
          interpreter: r.interpreter as Ref,
          prevEntryHash: r.prev_entry_hash as Ref,
          writtenBy: r.written_by,
        },
        r.transition_ref as Ref,
      );
      if (Number(r.entry_index) !== i || r.prev_entry_hash !== prev || recomputed !== r.entry_hash)
        broken.push(`#${r.entry_index}`);
    });
    expect(broken).toEqual([]);
    return rows.length;
  }

  const journalOf = async (ids: string[]) =>
    new Map(
      (
        await q<{
          invocation_id: string;
          state: string;
          end_reason: string | null;
          entry_index: string | null;
        }>(
          'SELECT invocation_id, state, end_reason, entry_index FROM ledger.commit_journal WHERE invocation_id = ANY($1)',
          [ids],
        )
      ).map((r) => [
        r.invocation_id,
        {
          state: r.state,
          endReason: r.end_reason,
          entryIndex: r.entry_index === null ? null : Number(r.entry_index),
        },
      ]),
    );

  const intentsOf = (episodes: string[]) =>
    q<{ episode_id: string; ordinal: string; invocation_id: string; status: string | null }>(
      'SELECT i.episode_id, i.ordinal, i.invocation_id, o.status FROM broker.effect_intents i LEFT JOIN broker.effect_outcomes o USING (episode_id, ordinal) WHERE i.episode_id = ANY($1) ORDER BY i.episode_id, i.ordinal',
      [episodes],
    );

  const journalLines = async (episode: string) =>
    (await readFile(join(worktrees.get(episode)!, JOURNAL), 'utf8')).split('\n').slice(0, -2);

  const metricsOf = async (p: ServiceProcess) => {
    const res = await fetch(`http://127.0.0.1:${p.healthPort}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };

  /**
   * `<replica>/<status>` → world_effects_total of each broker and world_calls_total of each
   * planner (ailang-edit calls by outcome), read from their /metrics.
   */
  async function counters(): Promise<Map<string, number>> {
    const values = new Map<string, number>();
    for (const p of up.processes) {
      if (p.service !== 'broker' && p.service !== 'planner') continue;
      const text = await metricsOf(p);
      for (const status of ['ok', 'denied', 'failed']) {
        const value =
          p.service === 'broker'
            ? metric(text, 'world_effects_total', { status })
            : metric(text, 'world_calls_total', { tool: 'ailang-edit', outcome: status });
        values.set(`${p.replica}/${status}`, value);
      }
    }
    return values;
  }

  /**
   * What a kill cost the episodes it left holding a lease: right after the kill (`killedAt`, epoch
   * ms), one probe call per episode (task `<episode>-<label>`, through gateway 1, on clients made
   * beforehand) while the episodes' lease fences are polled. Returns each probe's answer with the
   * ms from the kill to it, and the ms from the kill to the episode's lease being taken by
   * another call (fence above `fence`, as read at the kill): the stall, measured, never asserted.
   */
  async function probeAfterKill(
    label: string,
    held: Array<{ id: string; fence: number }>,
    killedAt: number,
    probeClients: Map<string, Caller>,
  ): Promise<
    Array<{ episode: string; answer: Answer; answeredMs: number; takenOverMs: number | null }>
  > {
    const takenOver = new Map<string, number>();
    let probing = true;
    const polling = (async () => {
      while (probing && takenOver.size < held.length) {
        const rows = await q<{ id: string; lease_fence: string }>(
          'SELECT id, lease_fence FROM broker.episodes WHERE id = ANY($1)',
          [held.map((h) => h.id)],
        );
        const at = Date.now() - killedAt;
        for (const r of rows) {
          const before = held.find((h) => h.id === r.id)!.fence;
          if (Number(r.lease_fence) > before && !takenOver.has(r.id)) takenOver.set(r.id, at);
        }
        await sleep(20);
      }
    })();
    const probes: Answer[] = [];
    const answered = await Promise.all(
      held.map(async (h) => {
        const answer = await callOnce(
          { id: `${h.id}-${label}`, worker: 300, episode: h.id, gateway: 1 },
          probes,
          probeClients.get(h.id)!,
        );
        return { episode: h.id, answer, answeredMs: Date.now() - killedAt };
      }),
    );
    probing = false;
    await polling;
    return answered.map((a) => ({ ...a, takenOverMs: takenOver.get(a.episode) ?? null }));
  }

  beforeAll(async () => {
    for (const service of SERVICES) {
      if (!existsSync(serviceEntry(service)))
        throw new Error(
          `${serviceEntry(service)} is missing: build first (pnpm exec turbo run build --filter=@world/cli...)`,
        );
    }
    db = await createTestDatabase(label);
    home = await mkdtemp(join(tmpdir(), 'world-scale-'));
    const port = await consecutiveFreePorts();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NATS_URL: testNatsUrl(),
      DATABASE_URL: db.url,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: join(home, 'home'),
      WORLD_WORKSPACE_ROOT: join(home, 'worktrees'),
      WORLD_BIND: `127.0.0.1:${port}`,
      WORLD_CALL_DEADLINE_MS: String(callDeadlineMs),
      WORLD_LOG_LEVEL: 'info',
    };
    await mkdir(env.WORLD_HOME!, { recursive: true });
    up = await startUp(
      { replicas: REPLICAS, onLine: (replica, line) => lines.push({ replica, line }) },
      env,
    );
    rpc = await connectRpc({ kind: 'nats', url: testNatsUrl(), prefix }, 'scale-test');
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    // Warm-up outside the measured episodes: every worker's first calls reach cold processes.
    const warm = Array.from({ length: PAIRS }, (_, i) => `warm-${i}`);
    await createEpisodes(warm, () => 100);
    await drive(planCalls('warm', warm, 2));
  }, 180_000);

  afterAll(async () => {
    for (const c of clients.values()) await c.close().catch(() => undefined);
    await up?.stop();
    // WORLD_SCALE_LOG=<file> keeps every process's lines for a post-mortem.
    if (process.env.WORLD_SCALE_LOG)
      await writeFile(
        `${process.env.WORLD_SCALE_LOG}.${label}`,
        lines.map((l) => `[${l.replica}] ${l.line}\n`).join(''),
      );
    await rpc?.close();
    await sql?.end();
    await db?.drop();
    if (home) await rm(home, { recursive: true, force: true });
  }, 60_000);

  return {
    /** the running system and its helpers (valid inside the block's tests) */
    get: () => ({
      up,
      db,
      rpc,
      lines,
      q,
      executed,
      createEpisodes,
      clientFor,
      callOnce,
      drive,
      checkLog,
      journalOf,
      intentsOf,
      journalLines,
      metricsOf,
      counters,
      probeAfterKill,
    }),
  };
}

describe(`world up --replicas ${REPLICAS} under load`, () => {
  const world = useScaledWorld('scale', DEADLINE_MS);

  it('starts 2 gateways on consecutive ports, 2 planners, 3 brokers and 2 ledgers, each gateway serving /metrics', async () => {
    const { up, db, q } = world.get();
    expect(up.processes.map((p) => p.replica)).toEqual([
      'ledger-1',
      'ledger-2',
      ...BROKERS,
      'planner-1',
      'planner-2',
      'gateway-1',
      'gateway-2',
    ]);
    const [g1, g2] = up.processes.filter((p) => p.service === 'gateway');
    expect(g2!.port).toBe(g1!.port! + 1);
    expect(up.gateways).toEqual([
      `http://127.0.0.1:${g1!.port}`,
      `http://127.0.0.1:${g1!.port! + 1}`,
    ]);
    for (const g of up.gateways) {
      const res = await fetch(`${g}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toMatch(/^# HELP world_http_requests_total /m);
    }
    const apps = await q<{ application_name: string }>(
      "SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'world-%' ORDER BY 1",
      [db.name],
    );
    expect(apps.map((a) => a.application_name)).toEqual([
      'world-broker-1',
      'world-broker-2',
      'world-broker-3',
      'world-ledger-1',
      'world-ledger-2',
    ]);
  });

  it('answers 400 calls from 16 clients over 20 episodes: dense log, one entry per call, serialized episodes, exact spend and denials, every broker serving', async () => {
    const {
      lines,
      q,
      executed,
      createEpisodes,
      drive,
      checkLog,
      journalOf,
      intentsOf,
      journalLines,
      counters,
    } = world.get();
    const episodes = Array.from({ length: 20 }, (_, i) => `ep-${String(i).padStart(2, '0')}`);
    /** five episodes can afford 12 of their 20 calls; the others all of them */
    const budgetOf = (e: string) => (episodes.indexOf(e) < 5 ? 12 : 50);
    await createEpisodes(episodes, budgetOf);
    const calls = planCalls('a', episodes, 20);
    const entriesBefore = await checkLog();
    const linesBefore = lines.length;
    const countersBefore = await counters();

    const answers = await drive(calls);

    // Every call answered with a committed result.
    expect(answers.filter((a) => a.kind === 'error')).toEqual([]);
    expect(answers).toHaveLength(400);
    const results = answers as Array<Extract<Answer, { kind: 'result' }>>;

    // The log: dense, hash-linked, exactly one new entry per call.
    expect(await checkLog()).toBe(entriesBefore + 400);
    const journal = await journalOf(calls.map(invocationOf));
    expect([...journal.values()].filter((j) => j.state !== 'committed')).toEqual([]);
    expect([...journal.values()].map((j) => j.entryIndex!).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 400 }, (_, i) => entriesBefore + i),
    );

    const intents = await intentsOf(episodes);
    const spend = new Map(
      (
        await q('SELECT episode_id, spent FROM broker.spend WHERE episode_id = ANY($1)', [episodes])
      ).map((r) => [r.episode_id, Number(r.spent)]),
    );
    const denials = await q<{ invocation_id: string; denial: string }>(
      'SELECT invocation_id, denial FROM broker.effect_records WHERE episode_id = ANY($1) AND NOT allowed',
      [episodes],
    );
    for (const e of episodes) {
      const mine = results
        .filter((a) => a.call.episode === e)
        .sort(
          (a, b) =>
            journal.get(invocationOf(a.call))!.entryIndex! -
            journal.get(invocationOf(b.call))!.entryIndex!,
        );
      const allowed = Math.min(budgetOf(e), 20);
      // Denials exactly where the budget ran out, in the order the log committed the calls.
      expect(mine.map((a) => a.status)).toEqual([
        ...Array(allowed).fill('ok'),
        ...Array(20 - allowed).fill('denied'),
      ]);
      const ran = mine.filter((a) => a.status === 'ok').map((a) => a.call);
      // One intent per allowed call, minted in log order: no call of the episode overtook another.
      expect(
        intents
          .filter((i) => i.episode_id === e)
          .map((i) => [Number(i.ordinal), i.invocation_id, i.status]),
      ).toEqual(ran.map((c, k) => [k, invocationOf(c), 'succeeded']));
      // The handlers ran one at a time, in that same order: no line lost, none twice.
      expect(await journalLines(e)).toEqual(ran.map((c) => c.id));
      expect(spend.get(e)).toBe(allowed);
      expect(
        denials
          .filter((d) => d.invocation_id.startsWith(`mcp:${e}:`))
          .map((d) => [d.invocation_id, d.denial])
          .sort(),
      ).toEqual(
        mine
          .filter((a) => a.status === 'denied')
          .map((a) => [invocationOf(a.call), 'denied:budget'])
          .sort(),
      );
    }
    // Every call took the episode's lease once (each acquisition bumps the fence), and all were released.
    await eventually(
      async () => {
        const rows = await q(
          'SELECT id, lease_holder, lease_fence FROM broker.episodes WHERE id = ANY($1) ORDER BY id',
          [episodes],
        );
        return rows.every((r) => r.lease_holder === null) ? rows : undefined;
      },
      10_000,
      'every lease released',
    ).then((rows) =>
      expect(rows.map((r) => Number(r.lease_fence))).toEqual(episodes.map(() => 20)),
    );

    // Every broker replica served calls: its own log says which invocations it decided.
    const decided = executed(linesBefore);
    expect(decided.map((d) => d.invocationId).sort()).toEqual(calls.map(invocationOf).sort());
    expect(decided.every((d) => d.process === d.replica)).toBe(true);
    for (const b of BROKERS)
      expect(decided.filter((d) => d.replica === b).length).toBeGreaterThan(0);
    const byInvocation = new Map(decided.map((d) => [d.invocationId, d.status]));
    expect(results.filter((a) => byInvocation.get(invocationOf(a.call)) !== a.status)).toEqual([]);
    // The brokers' and planners' metrics count the same calls, each replica its share.
    const countersAfter = await counters();
    const delta = (key: string) => (countersAfter.get(key) ?? 0) - (countersBefore.get(key) ?? 0);
    const okCount = results.filter((a) => a.status === 'ok').length;
    const sum = (replicas: string[], status: string) =>
      replicas.reduce((n, r) => n + delta(`${r}/${status}`), 0);
    expect(BROKERS.map((b) => delta(`${b}/ok`) + delta(`${b}/denied`)).every((n) => n > 0)).toBe(
      true,
    );
    expect([sum(BROKERS, 'ok'), sum(BROKERS, 'denied')]).toEqual([okCount, 400 - okCount]);
    const planners = ['planner-1', 'planner-2'];
    expect(planners.map((p) => delta(`${p}/ok`) + delta(`${p}/denied`)).every((n) => n > 0)).toBe(
      true,
    );
    expect([sum(planners, 'ok'), sum(planners, 'denied')]).toEqual([okCount, 400 - okCount]);
  }, 180_000);
});

describe(`world up --replicas ${REPLICAS} with a broker SIGKILLed mid-load`, () => {
  const world = useScaledWorld('scalekill', KILL_DEADLINE_MS);

  it('survives a SIGKILLed broker mid-load: nothing runs twice, no entry is lost, leases are taken over, the restarted replica reports its indeterminate intents', async () => {
    const {
      up,
      db,
      rpc,
      lines,
      q,
      executed,
      createEpisodes,
      clientFor,
      callOnce,
      drive,
      checkLog,
      journalOf,
      intentsOf,
      journalLines,
      metricsOf,
      probeAfterKill,
    } = world.get();
    const episodes = Array.from({ length: PAIRS }, (_, i) => `k-${String(i).padStart(2, '0')}`);
    await createEpisodes(episodes, () => 100);
    const calls = planCalls('k', episodes, 30);
    const ids = calls.map(invocationOf);
    // The probes' clients exist before the kill, so a probe's time is the call's, not a connect's.
    const probeClients = new Map<string, Caller>();
    for (const e of episodes) probeClients.set(e, await clientFor(300, e, 1));
    const entriesBefore = await checkLog();
    const answers: Answer[] = [];
    const load = drive(calls, answers);

    // Freeze every broker just before its outcome write (a table lock the test holds), then kill
    // the victim while it holds at least one call whose handler has run.
    await eventually(
      () => (answers.length >= 60 ? true : undefined),
      60_000,
      'a quarter of the load',
    );
    const victim = up.processes.find((p) => p.replica === VICTIM)!;
    const lock = new pg.Client({ connectionString: db.url });
    await lock.connect();
    let blocked = 0;
    let killedAt = 0;
    let fencesAtKill: Array<{ id: string; fence: number }> = [];
    for (let attempt = 0; blocked === 0; attempt++) {
      expect(attempt).toBeLessThan(20);
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE broker.effect_outcomes IN EXCLUSIVE MODE');
      blocked = await eventually(
        async () => {
          const [row] = await q(
            "SELECT count(DISTINCT a.pid)::int AS n FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid WHERE a.application_name = $1 AND NOT l.granted AND l.relation = 'broker.effect_outcomes'::regclass",
            [`world-${VICTIM}`],
          );
          return row.n > 0 ? (row.n as number) : undefined;
        },
        2_000,
        'a victim call waiting to write its outcome',
      ).catch(() => 0);
      if (blocked > 0) {
        fencesAtKill = (
          await q('SELECT id, lease_fence FROM broker.episodes WHERE id = ANY($1)', [episodes])
        ).map((r) => ({ id: r.id as string, fence: Number(r.lease_fence) }));
        const waiters = (
          await q(
            "SELECT DISTINCT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid WHERE a.application_name = $1 AND NOT l.granted AND l.relation = 'broker.effect_outcomes'::regclass",
            [`world-${VICTIM}`],
          )
        ).map((r) => Number(r.pid));
        killedAt = Date.now();
        safeKill(victim.child.pid!, 'SIGKILL');
        await victim.exited;
        // tx2 is one autocommit statement: the dead broker's waiting ones are cancelled by their
        // backends (client_connection_check_interval) once they see the connection gone; the lock
        // frees after that, so nothing of them lands.
        await eventually(
          async () => {
            const [row] = await q(
              'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1)',
              [waiters],
            );
            return row.n === 0 ? true : undefined;
          },
          10_000,
          'the dead broker’s waiting backends gone',
        );
      }
      await lock.query('ROLLBACK');
    }
    await lock.end();
    const answersAtKill = answers.length;
    const linesAtKill = lines.length;
    const heldAtKill = await q<{ id: string; lease_holder: string; lease_fence: string }>(
      'SELECT id, lease_holder, lease_fence FROM broker.episodes WHERE id = ANY($1) AND lease_holder IS NOT NULL',
      [episodes],
    );
    // One call on every episode right after the kill: each commits within its lease wait, also
    // where the dead broker's call held the lease (it lapses EPISODE_LEASE_TTL_MS after the last
    // renewal instead of a whole call deadline later).
    const probes = await probeAfterKill('probe', fencesAtKill, killedAt, probeClients);
    expect(
      probes.map((p) => [
        p.episode,
        p.answer.kind,
        p.answer.kind === 'result' ? p.answer.status : p.answer.message,
      ]),
    ).toEqual(episodes.map((e) => [e, 'result', 'ok']));

    await load;
    // Every call answered: a committed result or an error.
    expect(answers).toHaveLength(240);
    const failed = answers.filter((a) => a.kind === 'error');
    // Every failure is one a caller may resend with the same task id.
    expect(failed.filter((a) => !isRetryableFailure(a))).toEqual([]);
    // The survivors kept serving after the kill (the victim's last lines may still arrive late).
    expect(answers.slice(answersAtKill).filter((a) => a.kind === 'result').length).toBeGreaterThan(
      0,
    );
    expect(
      new Set(
        executed(linesAtKill)
          .filter((d) => d.process !== VICTIM)
          .map((d) => d.replica),
      ),
    ).toEqual(new Set(['broker-1', 'broker-3']));

    // What the victim held: intents whose outcome never came (its handler ran, its write was lost).
    const indeterminate = (await intentsOf(episodes)).filter((i) => i.status === null);
    expect(indeterminate.length).toBeGreaterThanOrEqual(blocked);
    const lost = new Set(indeterminate.map((i) => i.invocation_id));

    // The restarted replica reports exactly those intents, and re-runs none of them.
    const reports: Array<ParsedRequestOf<'broker.recovery'>> = [];
    const off = rpc.subscribe('broker.recovery', (event) => reports.push(event));
    await rpc.ping();
    const linesBeforeRestart = lines.length;
    const restarted = up.respawn(VICTIM);
    await restarted.ready;
    const fromVictim = () => reports.filter((r) => r.replica === VICTIM);
    await eventually(
      () => (fromVictim().length > 0 ? true : undefined),
      10_000,
      'the recovery report',
    );
    off();
    const expected = indeterminate
      .map((i) => ({
        invocationId: i.invocation_id,
        episodeId: i.episode_id,
        ordinal: Number(i.ordinal),
        effect: 'Workspace.Write',
        scope: 'worktree',
      }))
      .sort((a, b) => a.invocationId.localeCompare(b.invocationId));
    expect(
      fromVictim().map((r) => ({
        replica: r.replica,
        items: [...r.items].sort((a, b) => a.invocationId.localeCompare(b.invocationId)),
      })),
    ).toEqual([{ replica: VICTIM, items: expected }]);
    // The survivors' sweeps may name the same orphans (world-internals §5.5), never others.
    for (const r of reports.filter((r) => r.replica !== VICTIM))
      for (const item of r.items) expect(expected).toContainEqual(item);
    const reported = lines
      .slice(linesBeforeRestart)
      .filter((l) => l.replica === VICTIM && l.line.includes('indeterminate effect intent'))
      .map((l) => JSON.parse(l.line).invocationId as string);
    expect(reported.sort()).toEqual(expected.map((e) => e.invocationId));

    // Each call in flight on the victim ended uncertain, uncommitted; its caller got an error.
    await eventually(
      async () => {
        const [row] = await q(
          "SELECT count(*)::int AS n FROM ledger.commit_journal WHERE invocation_id = ANY($1) AND state = 'claimed' AND claim_expires_at > now()",
          [ids],
        );
        return row.n === 0 ? true : undefined;
      },
      KILL_DEADLINES.leaseTtlMs * 2,
      'every claim ended or expired',
    );
    const journal = await journalOf(ids);
    for (const id of lost)
      expect([id, journal.get(id)]).toEqual([
        id,
        { state: 'ended', endReason: 'uncertain', entryIndex: null },
      ]);
    expect(answers.filter((a) => lost.has(invocationOf(a.call))).map((a) => a.kind)).toEqual(
      [...lost].map(() => 'error'),
    );

    // Resend every failed call with its task id: what never ran runs now, once; what ran (or may
    // have) is refused and never re-run; nothing committed is answered twice.
    const intentCount = async (id: string) =>
      Number(
        (
          await q('SELECT count(*)::int AS n FROM broker.effect_intents WHERE invocation_id = $1', [
            id,
          ])
        )[0].n,
      );
    const resent: Answer[] = [];
    for (const a of failed) {
      const id = invocationOf(a.call);
      const before = await intentCount(id);
      const state = journal.get(id)?.state;
      const again = await callOnce(a.call, resent, await clientFor(100, a.call.episode, 0));
      if (state === 'committed' || before === 0) {
        // Committed after its caller gave up (answered from the ledger), or never ran (runs now).
        expect([id, again.kind, again.kind === 'result' ? again.status : again.message]).toEqual([
          id,
          'result',
          'ok',
        ]);
      } else {
        // It ran, or may have, without a log entry: refused, never re-run.
        expect([id, again.kind, again.kind === 'error' ? again.code : null]).toEqual([
          id,
          'error',
          HOST_FAILURE_CODE,
        ]);
      }
      expect([id, await intentCount(id)]).toEqual([id, before === 0 ? 1 : before]);
    }

    // A killed holder's lease was taken over after its expiry: later calls of its episode ran.
    const deadHolders = heldAtKill.filter((h) =>
      lost.has(h.lease_holder.slice(h.lease_holder.indexOf('/') + 1)),
    );
    expect(deadHolders.length).toBeGreaterThan(0);
    // The stall the kill caused on each episode the victim's calls held (measured, not asserted).
    for (const h of deadHolders) {
      const p = probes.find((x) => x.episode === h.id)!;
      process.stdout.write(
        `broker SIGKILL stall on ${h.id}: lease taken over ${p.takenOverMs} ms after the kill; probe call answered after ${p.answeredMs} ms\n`,
      );
    }
    for (const h of deadHolders) {
      const extra: Answer[] = [];
      const after = await callOnce(
        { id: `${h.id}-after`, worker: 100, episode: h.id, gateway: 1 },
        extra,
        await clientFor(100, h.id, 1),
      );
      expect([h.id, after.kind]).toEqual([h.id, 'result']);
      const [row] = await q('SELECT lease_fence FROM broker.episodes WHERE id = $1', [h.id]);
      expect(Number(row.lease_fence)).toBeGreaterThan(Number(h.lease_fence));
    }
    let takeovers = 0;
    for (const p of up.processes.filter((x) => x.service === 'broker'))
      takeovers += metric(await metricsOf(p), 'world_lease_takeovers_total');
    expect(takeovers).toBeGreaterThanOrEqual(deadHolders.length);

    // No entry lost, none twice: the log is dense and linked, and every committed invocation
    // owns exactly one of the new entries.
    const total = await checkLog();
    const finalJournal = await journalOf([
      ...ids,
      ...episodes.map((e) => `mcp:${e}:${e}-probe`),
      ...deadHolders.map((h) => `mcp:${h.id}:${h.id}-after`),
    ]);
    const committed = [...finalJournal.values()]
      .filter((j) => j.state === 'committed')
      .map((j) => j.entryIndex!)
      .sort((a, b) => a - b);
    expect(committed).toEqual(
      Array.from({ length: total - entriesBefore }, (_, i) => entriesBefore + i),
    );
    for (const a of answers.filter((x) => x.kind === 'result'))
      expect(finalJournal.get(invocationOf(a.call))?.state).toBe('committed');

    // None executed twice: at most one intent per invocation, each line at most once, every
    // committed edit present, spend = Σ intents per episode.
    expect(
      await q(
        'SELECT invocation_id FROM broker.effect_intents GROUP BY invocation_id HAVING count(*) > 1',
      ),
    ).toEqual([]);
    const finalIntents = await intentsOf(episodes);
    const spend = new Map(
      (
        await q('SELECT episode_id, spent FROM broker.spend WHERE episode_id = ANY($1)', [episodes])
      ).map((r) => [r.episode_id, Number(r.spent)]),
    );
    for (const e of episodes) {
      const journalFile = await journalLines(e);
      expect([e, journalFile.length]).toEqual([e, new Set(journalFile).size]);
      const mine = finalIntents.filter((i) => i.episode_id === e);
      const ranFully = mine
        .filter((i) => i.status === 'succeeded')
        .map((i) => i.invocation_id.slice(`mcp:${e}:`.length));
      expect(ranFully.filter((id) => !journalFile.includes(id))).toEqual([]);
      const maybe = new Set(mine.map((i) => i.invocation_id.slice(`mcp:${e}:`.length)));
      expect(journalFile.filter((id) => !maybe.has(id))).toEqual([]);
      expect([e, spend.get(e)]).toEqual([e, mine.length]);
    }
  }, 240_000);

  it('stalls the episodes a SIGKILLed planner held only until their leases lapse: a call sent right after the kill commits, the log stays dense', async () => {
    const { up, db, q, createEpisodes, clientFor, drive, checkLog, journalOf, probeAfterKill } =
      world.get();
    const episodes = Array.from({ length: PAIRS }, (_, i) => `p-${String(i).padStart(2, '0')}`);
    await createEpisodes(episodes, () => 100);
    const calls = planCalls('p', episodes, 20);
    const probeClients = new Map<string, Caller>();
    for (const e of episodes) probeClients.set(e, await clientFor(300, e, 1));
    const entriesBefore = await checkLog();
    const answers: Answer[] = [];
    const load = drive(calls, answers);
    await eventually(
      () => (answers.length >= 40 ? true : undefined),
      60_000,
      'a quarter of the load',
    );

    // Freeze every commit (a table lock the test holds), then kill planner-1 while calls of its
    // hold episode leases: their commits wait, so the leases are held by a process about to die.
    const victim = up.processes.find((p) => p.replica === 'planner-1')!;
    const lock = new pg.Client({ connectionString: db.url });
    await lock.connect();
    let held: Array<{ id: string; fence: number }> = [];
    let killedAt = 0;
    for (let attempt = 0; held.length === 0; attempt++) {
      expect(attempt).toBeLessThan(20);
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE');
      held = await eventually(
        async () => {
          const rows = await q(
            "SELECT id, lease_fence FROM broker.episodes WHERE id = ANY($1) AND lease_holder LIKE 'planner-1/%'",
            [episodes],
          );
          return rows.length > 0
            ? rows.map((r) => ({ id: r.id as string, fence: Number(r.lease_fence) }))
            : undefined;
        },
        2_000,
        'a lease held by a call of planner-1',
      ).catch(() => []);
      if (held.length > 0) {
        killedAt = Date.now();
        safeKill(victim.child.pid!, 'SIGKILL');
        await victim.exited;
      }
      await lock.query('ROLLBACK');
    }
    await lock.end();

    // A call on each of those episodes, sent at once, commits: the dead planner's leases lapse
    // EPISODE_LEASE_TTL_MS after its last renewal, within the probe's lease wait.
    const probes = await probeAfterKill('probe', held, killedAt, probeClients);
    expect(
      probes.map((p) => [
        p.episode,
        p.answer.kind,
        p.answer.kind === 'result' ? p.answer.status : p.answer.message,
      ]),
    ).toEqual(held.map((h) => [h.id, 'result', 'ok']));
    for (const p of probes)
      process.stdout.write(
        `planner SIGKILL stall on ${p.episode}: lease taken over ${p.takenOverMs} ms after the kill; probe call answered after ${p.answeredMs} ms\n`,
      );

    await load;
    expect(answers).toHaveLength(160);
    // Every failure is one a caller may resend with the same task id (the dead planner's calls).
    expect(answers.filter((a) => a.kind === 'error' && !isRetryableFailure(a))).toEqual([]);
    // The log is dense and linked, each committed invocation owns one entry, every answered
    // result is committed, and nothing ran twice.
    const total = await checkLog();
    const journal = await journalOf([
      ...calls.map(invocationOf),
      ...held.map((h) => `mcp:${h.id}:${h.id}-probe`),
    ]);
    const committed = [...journal.values()]
      .filter((j) => j.state === 'committed')
      .map((j) => j.entryIndex!)
      .sort((a, b) => a - b);
    expect(committed).toEqual(
      Array.from({ length: total - entriesBefore }, (_, i) => entriesBefore + i),
    );
    for (const a of answers.filter((x) => x.kind === 'result'))
      expect(journal.get(invocationOf(a.call))?.state).toBe('committed');
    expect(
      await q(
        'SELECT invocation_id FROM broker.effect_intents GROUP BY invocation_id HAVING count(*) > 1',
      ),
    ).toEqual([]);
  }, 240_000);
});
