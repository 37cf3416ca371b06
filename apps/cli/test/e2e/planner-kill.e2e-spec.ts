/**
 * A planner SIGKILLed while it holds an episode's lease with a second call of that episode queued
 * at the broker for the lease (DESIGN.md §2 "Per-episode serialization"). The planner runs as a
 * real process; the ledger, broker, gateway and a second planner run here on the same PostgreSQL
 * and NATS. Commits are frozen by a table lock so the first call holds the lease when the
 * planner dies. The queued call is dropped when its lease wait ends, because its planner no
 * longer answers its liveness subject: its effect never runs (no intent, no record, no file, no
 * spend), and a call of the episode sent right after the kill through the other planner commits
 * within its lease wait (the stall target, EPISODE_LEASE_TTL_MS + PLANNER_LIVENESS_MS), and so
 * does the call sent after it. The stall (kill → each of those answers) is printed, never
 * asserted.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker } from '@world/broker';
import {
  EPISODE_LEASE_TTL_MS,
  PLANNER_LIVENESS_MS,
  READ_ALL,
  deadlineTable,
} from '@world/contracts';
import { startGateway } from '@world/gateway';
import { startLedger } from '@world/ledger';
import { startPlanner } from '@world/planner';
import {
  captureLogs,
  connectRpc,
  openPostgres,
  worldMetrics,
  type DatabaseHandle,
  type LogCapture,
  type RpcClient,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import {
  createTestDatabase,
  eventually,
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
  type TestProcess,
} from '@world/testing';
import { holdLock } from '../support/locks.js';

const PLANNER_ENTRY = fileURLToPath(new URL('../../../planner/dist/main.js', import.meta.url));
/** How long after the kill a call of the episode may wait for its lease: one lease + one liveness ask. */
const STALL_TARGET_MS = EPISODE_LEASE_TTL_MS + PLANNER_LIVENESS_MS;
/**
 * The second planner's call deadline: a call's lease wait is what its deadline leaves after the
 * handler cap and the post-effect budget (0.3 × the total, deadlineTable), so a call it sends
 * right after the kill gives up (Timeout) unless it gets the lease within the stall target.
 */
const PROBE_DEADLINE_MS = 16_670;
const DROPPED = 'the planner of a call waiting for the lease did not answer; the call is dropped';

describe('a planner SIGKILLed holding a lease with a second call of the episode queued', () => {
  let db: TestDatabase;
  let database: DatabaseHandle;
  let home: string;
  let transport: TransportConfig;
  let rpc: RpcClient;
  const inProcess: RunningService[] = [];
  let planner: TestProcess | undefined;
  let logs: LogCapture | undefined;
  let url: string;

  beforeAll(async () => {
    db = await createTestDatabase('plannerkill');
    database = await openPostgres(db.url);
    home = await mkdtemp(join(tmpdir(), 'world-plannerkill-'));
    const prefix = uniquePrefix('plannerkill');
    transport = { kind: 'nats', url: testNatsUrl(), prefix };
    planner = startNode(PLANNER_ENTRY, [], {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: db.url,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: join(home, 'home'),
      WORLD_LOG_LEVEL: 'info',
    });
    await planner.waitForLine(/"msg":"ready"/, 30_000);
    inProcess.push(await startLedger({ transport, database }));
    inProcess.push(
      await startBroker({
        transport,
        database,
        worldHome: join(home, 'home'),
        workspaceRoot: join(home, 'ws'),
      }),
    );
    const gateway = await startGateway({
      transport,
      bind: '127.0.0.1:0',
      worldHome: join(home, 'home'),
    });
    inProcess.push(gateway);
    url = gateway.url;
    rpc = await connectRpc(transport, 'plannerkill-test');
  }, 60_000);

  afterAll(async () => {
    logs?.stop();
    planner?.kill('SIGKILL');
    await planner?.exited;
    await rpc?.close();
    for (const s of inProcess.reverse()) await s.close();
    await database?.close();
    await db?.drop();
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  const tasksSend = async (token: string, id: string, path: string) => {
    const res = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/send',
        params: {
          id,
          metadata: { skill_id: 'ailang-write' },
          message: { role: 'user', parts: [{ type: 'data', data: { path, content: id } }] },
        },
      }),
    });
    return (await res.json()) as {
      result?: { status: { state: string } };
      error?: { code: number; message: string };
    };
  };

  /** Calls of this process's broker that found a lease held (world_lease_waits_total). */
  const leaseWaits = async () =>
    (await worldMetrics().leaseWaits.get()).values.reduce((n, v) => n + v.value, 0);

  it('drops the queued call (its effect never runs) and a call sent right after the kill commits within the stall target', async () => {
    const table = deadlineTable(PROBE_DEADLINE_MS);
    expect(table.totalMs - table.handlerMs - table.postEffectMs).toBe(STALL_TARGET_MS + 1);

    const src = await mkdtemp(join(tmpdir(), 'world-plannerkill-src-'));
    const { worktree } = await rpc.request(
      'broker.episode.create',
      { episodeId: 'ep1', source: { kind: 'copy', dir: src } },
      { timeoutMs: 10_000 },
    );
    await rm(src, { recursive: true, force: true });
    const { token } = await rpc.request(
      'broker.session.mint',
      {
        episodeId: 'ep1',
        grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget: 10 }],
        ttlSeconds: 600,
      },
      { timeoutMs: 10_000 },
    );

    // Freeze commits, then send two calls of ep1 to the planner process: the first takes the
    // lease and waits at its commit, the second waits for the lease at the broker.
    const unlock = await holdLock(db.url, 'LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE');
    const waitsBefore = await leaseWaits();
    const first = tasksSend(token, 'k1', 'first.txt').catch((err: Error) => err);
    await eventually(
      () => (existsSync(join(worktree, 'first.txt')) ? true : undefined),
      10_000,
      'the first call ran its write',
    );
    const second = tasksSend(token, 'k2', 'second.txt').catch((err: Error) => err);
    await eventually(
      async () => ((await leaseWaits()) === waitsBefore + 1 ? true : undefined),
      10_000,
      'the second call waiting for the lease at the broker',
    );

    // A second planner, started once both calls are the first planner's: it serves the next call.
    inProcess.push(await startPlanner({ transport, callDeadlineMs: PROBE_DEADLINE_MS }));
    logs = captureLogs('warn');
    const killedAt = Date.now();
    planner!.kill('SIGKILL');
    expect((await planner!.exited).signal).toBe('SIGKILL');
    await unlock();

    // One call right after the kill, and one right after it: the episode serves again (a queued
    // call that took the lapsed lease would hold it one more lease after the first answer).
    const probe = await tasksSend(token, 'k3', 'third.txt');
    const answeredMs = Date.now() - killedAt;
    const next = await tasksSend(token, 'k4', 'fourth.txt');
    const nextMs = Date.now() - killedAt;
    process.stdout.write(
      `planner SIGKILL stall on ep1 with a call queued: the next call answered ${answeredMs} ms after the kill, the one after it ${nextMs} ms (target ${STALL_TARGET_MS} ms)\n`,
    );
    expect([probe.result?.status.state, next.result?.status.state]).toEqual([
      'completed',
      'completed',
    ]);
    // The dead planner's callers get the gateway's host error once their deadline passes; by
    // then the broker has ended the queued call's lease wait.
    await Promise.all([first, second]);

    expect(
      logs.records
        .filter((r) => r.msg === DROPPED)
        .map((r) => ({ episodeId: r.episodeId, caller: /^[0-9a-f]{16}$/.test(String(r.caller)) })),
    ).toEqual([{ episodeId: 'ep1', caller: true }]);
    const intents = async (id: string) =>
      (
        await rpc.request(
          'broker.effect.byInvocation',
          { invocationId: `a2a:ep1:${id}` },
          { timeoutMs: 5_000 },
        )
      ).items.map((i) => [i.ordinal, i.effect, i.status]);
    expect(await Promise.all(['k1', 'k2', 'k3', 'k4'].map(intents))).toEqual([
      [[0, 'Workspace.Write', 'succeeded']],
      [],
      [[1, 'Workspace.Write', 'succeeded']],
      [[2, 'Workspace.Write', 'succeeded']],
    ]);
    const { rows: records } = await database.query<{ invocation_id: string; n: string }>(
      `SELECT invocation_id, count(*)::text AS n FROM broker.effect_records
        WHERE episode_id = 'ep1' GROUP BY invocation_id ORDER BY invocation_id`,
    );
    expect(records).toEqual([
      { invocation_id: 'a2a:ep1:k1', n: '1' },
      { invocation_id: 'a2a:ep1:k3', n: '1' },
      { invocation_id: 'a2a:ep1:k4', n: '1' },
    ]);
    const spend = await rpc.request(
      'broker.episode.spend',
      { episodeId: 'ep1', scope: READ_ALL },
      { timeoutMs: 5_000 },
    );
    expect(spend.grants.map((g) => [g.effect, g.budget, g.spent, g.left])).toEqual([
      ['Workspace.Write', 10, 3, 7],
    ]);
    expect([
      await readFile(join(worktree, 'first.txt'), 'utf8'),
      existsSync(join(worktree, 'second.txt')),
      await readFile(join(worktree, 'third.txt'), 'utf8'),
      await readFile(join(worktree, 'fourth.txt'), 'utf8'),
    ]).toEqual(['k1', false, 'k3', 'k4']);
  }, 120_000);
});
