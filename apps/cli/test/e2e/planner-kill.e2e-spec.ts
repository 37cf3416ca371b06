/**
 * A planner SIGKILLed while it holds an episode's lease with a second call of that episode queued
 * (issue 11 item 14; DESIGN.md §2 "Per-episode serialization"). The planner runs as a real
 * process; the ledger, broker and gateway run here on the same PostgreSQL and NATS. Commits are
 * frozen by a table lock so the first call holds the lease when the planner dies. The queued
 * call must die with its planner: it never runs its effect (no intent, its file never written),
 * and a call sent after the kill through a new planner commits once the dead holder's lease lapses.
 * The stall (kill → that call's answer) is printed, never asserted (timings are benchmarks).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startBroker } from '@world/broker';
import { startGateway } from '@world/gateway';
import { startLedger } from '@world/ledger';
import { startPlanner } from '@world/planner';
import {
  connectRpc,
  openPostgres,
  type DatabaseHandle,
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

const PLANNER_ENTRY = fileURLToPath(new URL('../../../planner/dist/main.js', import.meta.url));

describe('a planner SIGKILLed holding a lease with a second call of the episode queued', () => {
  let db: TestDatabase;
  let database: DatabaseHandle;
  let home: string;
  let transport: TransportConfig;
  let rpc: RpcClient;
  const inProcess: RunningService[] = [];
  let planner: TestProcess | undefined;
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

  it('never runs the queued call, and a later call commits once the lease lapses', async () => {
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

    // Freeze commits, then send two calls of ep1 to the one planner: the first takes the lease
    // and waits at its commit, the second waits behind it.
    const lock = new pg.Client({ connectionString: db.url });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE');
    const first = tasksSend(token, 'k1', 'first.txt').catch((err: Error) => err);
    await eventually(
      () => (existsSync(join(worktree, 'first.txt')) ? true : undefined),
      10_000,
      'the first call ran its write',
    );
    const second = tasksSend(token, 'k2', 'second.txt').catch((err: Error) => err);
    // The second call is planned and waiting for the lease (its plan takes milliseconds).
    await new Promise((r) => setTimeout(r, 1_000));
    const killedAt = Date.now();
    planner!.kill('SIGKILL');
    expect((await planner!.exited).signal).toBe('SIGKILL');
    await lock.query('ROLLBACK');
    await lock.end();

    // A planner started after the kill serves the next call of ep1.
    inProcess.push(await startPlanner({ transport }));
    const startedMs = Date.now() - killedAt;
    const probe = await tasksSend(token, 'k3', 'third.txt');
    const answeredMs = Date.now() - killedAt;
    process.stdout.write(
      `planner SIGKILL stall on ep1: new planner up ${startedMs} ms after the kill; probe call answered after ${answeredMs} ms\n`,
    );
    expect(probe.result?.status.state).toBe('completed');
    // The dead planner's callers get the gateway's host error once their deadline passes.
    await Promise.all([first, second]);

    // Let anything still waiting in the broker run now if it would (the queued call's lease wait).
    await new Promise((r) => setTimeout(r, 3_000));
    const intents = async (id: string) =>
      (
        await rpc.request(
          'broker.effect.byInvocation',
          { invocationId: `a2a:ep1:${id}` },
          { timeoutMs: 5_000 },
        )
      ).items.map((i) => [i.ordinal, i.effect]);
    expect([await intents('k1'), await intents('k2'), await intents('k3')]).toEqual([
      [[0, 'Workspace.Write']],
      [],
      [[1, 'Workspace.Write']],
    ]);
    expect([
      await readFile(join(worktree, 'first.txt'), 'utf8'),
      existsSync(join(worktree, 'second.txt')),
      await readFile(join(worktree, 'third.txt'), 'utf8'),
    ]).toEqual(['k1', false, 'k3']);
  }, 90_000);
});
