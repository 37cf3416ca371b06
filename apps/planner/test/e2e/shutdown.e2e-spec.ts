import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReplyOf, Session } from '@world/contracts';
import { connectRpc, type RpcClient } from '@world/runtime';
import {
  createTestDatabase,
  eventually,
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
  type TestProcess,
} from '@world/testing';
import { sample, scrape } from './system.js';

// packages/runtime/README.md "Shutdown" and world-spec §7.2: a SIGTERM'd planner or broker process
// stops taking work, lets the call it holds finish (the call commits) and exits 0 within the drain;
// later calls go to the surviving replica. Real processes on real NATS and PostgreSQL.

const dist = (app: string) =>
  fileURLToPath(new URL(`../../../${app}/dist/main.js`, import.meta.url));
const MAINS = { ledger: dist('ledger'), broker: dist('broker'), planner: dist('planner') };
const READY = /"msg":"ready"/;
/** A draining server's line once NATS routes it nothing more (one call still in flight). */
const STOPPED_TAKING_WORK = /"inFlight":1,"msg":"stopped taking work"/;
/** A long call deadline: the held call waits on the lease while a second replica boots. */
const CALL_DEADLINE_MS = 60_000;
const RPC_TIMEOUT_MS = 10_000;
const INVOKE_TIMEOUT_MS = CALL_DEADLINE_MS + 5_000;
const LEASE_TTL_MS = 120_000;
const HELLO = 'module hello\n';

interface Started {
  process: TestProcess;
  replica: string;
  healthPort: number;
}

describe('graceful shutdown of planner and broker processes', () => {
  let tdb: TestDatabase;
  let home: string;
  let prefix: string;
  let client: RpcClient;
  const running: TestProcess[] = [];

  async function start(service: keyof typeof MAINS, replica: string): Promise<Started> {
    const child = startNode(MAINS[service], [], {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: tdb.url,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: join(home, 'home'),
      WORLD_WORKSPACE_ROOT: join(home, 'ws'),
      WORLD_CALL_DEADLINE_MS: String(CALL_DEADLINE_MS),
      WORLD_REPLICA: replica,
      WORLD_HEALTH_PORT: '0',
      WORLD_HEALTH_HOST: '127.0.0.1',
      WORLD_LOG_LEVEL: 'info',
      WORLD_CRASHPOINT: undefined,
    });
    running.push(child);
    const ready = JSON.parse(await child.waitForLine(READY)) as {
      replica: string;
      healthPort: number;
    };
    expect(ready.replica).toBe(replica);
    return { process: child, replica, healthPort: ready.healthPort };
  }

  async function episode(episodeId: string): Promise<Session> {
    const dir = await mkdtemp(join(tmpdir(), 'world-shutdown-src-'));
    await writeFile(join(dir, 'hello.ail'), HELLO);
    await client.request(
      'broker.episode.create',
      { episodeId, source: { kind: 'copy', dir } },
      { timeoutMs: RPC_TIMEOUT_MS },
    );
    await rm(dir, { recursive: true, force: true });
    const { token: _token, ...session } = await client.request(
      'broker.session.mint',
      {
        episodeId,
        grants: [{ effect: 'Workspace.Read', scope: 'worktree', budget: 50 }],
        ttlSeconds: 3600,
      },
      { timeoutMs: RPC_TIMEOUT_MS },
    );
    return session;
  }

  function invoke(session: Session): Promise<ReplyOf<'planner.invoke'>> {
    return client.request(
      'planner.invoke',
      { surface: 'mcp', session, toolId: 'ailang-read', arguments: { path: 'hello.ail' } },
      { timeoutMs: INVOKE_TIMEOUT_MS },
    );
  }

  /** Holds an episode's lease as the test, so a call on it waits inside the broker. */
  async function holdLease(episodeId: string): Promise<() => Promise<void>> {
    const { fence } = await client.request(
      'broker.episode.acquire',
      { episodeId, holder: 'the-test', ttlMs: LEASE_TTL_MS, waitMs: 0 },
      { timeoutMs: RPC_TIMEOUT_MS },
    );
    return async () => {
      const { released } = await client.request(
        'broker.episode.release',
        { episodeId, holder: 'the-test', fence },
        { timeoutMs: RPC_TIMEOUT_MS },
      );
      expect(released).toBe(true);
    };
  }

  /** Resolves once a broker replica has a call waiting on a held lease. */
  async function waitingAt(broker: Started, waits: number): Promise<void> {
    await eventually(
      async () => {
        const lines = await scrape(`http://127.0.0.1:${broker.healthPort}`);
        return sample(lines, 'world_lease_waits_total', { replica: broker.replica }) === waits
          ? true
          : undefined;
      },
      20_000,
      `${waits} lease waits at ${broker.replica}`,
    );
  }

  async function expectCommitted(reply: ReplyOf<'planner.invoke'>): Promise<void> {
    expect(reply.output.ok).toBe(true);
    expect(reply.replayed).toBe(false);
    const entry = await client.request(
      'ledger.log.entry',
      { index: reply.entryIndex },
      { timeoutMs: RPC_TIMEOUT_MS },
    );
    expect(entry.header.writtenBy).toBe('coordinator:mcp');
  }

  const committedLines = (p: TestProcess) =>
    p.lines.filter((l) => l.includes('"msg":"call committed"')).length;
  const executedLines = (p: TestProcess) =>
    p.lines.filter((l) => l.includes('"msg":"effect executed"')).length;

  beforeAll(async () => {
    for (const main of Object.values(MAINS)) {
      if (!existsSync(main))
        throw new Error(
          `${main} is missing: build first (pnpm exec turbo run build --filter=@world/planner...)`,
        );
    }
    tdb = await createTestDatabase('shutdown');
    home = await mkdtemp(join(tmpdir(), 'world-shutdown-'));
    prefix = uniquePrefix('shutdown');
    client = await connectRpc({ kind: 'nats', url: testNatsUrl(), prefix }, 'shutdown-test');
  });

  afterAll(async () => {
    await client?.close();
    for (const p of running) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.kill('SIGKILL');
        await p.exited;
      }
    }
    await tdb?.drop();
    await rm(home, { recursive: true, force: true });
  });

  it('drains a SIGTERMed planner: its held call commits, it exits 0, and calls during and after the drain go to the other planner; then the same for a broker', async () => {
    await start('ledger', 'ledger-1');
    const brokerA = await start('broker', 'broker-a');
    const plannerA = await start('planner', 'planner-a');
    const held = await episode('ep-held');
    const other = await episode('ep-other');

    // Planner: a call held inside planner-a (its execute waits on the lease the test holds).
    let release = await holdLease('ep-held');
    const inFlight = invoke(held);
    await waitingAt(brokerA, 1);
    const plannerB = await start('planner', 'planner-b');
    plannerA.process.kill('SIGTERM');
    await plannerA.process.waitForLine(STOPPED_TAKING_WORK);
    // planner-a drained its subscriptions: a call made now is planner-b's.
    await expectCommitted(await invoke(other));
    expect(committedLines(plannerB.process)).toBe(1);
    await release();
    await expectCommitted(await inFlight);
    await expect(plannerA.process.exited).resolves.toEqual({ code: 0, signal: null });
    expect(committedLines(plannerA.process)).toBe(1);
    for (let i = 0; i < 3; i++) await expectCommitted(await invoke(other));
    expect(committedLines(plannerB.process)).toBe(4);

    // Broker: a call held inside broker-a; broker-b boots, broker-a is SIGTERMed.
    release = await holdLease('ep-held');
    const inFlightAtBroker = invoke(held);
    await waitingAt(brokerA, 2);
    const brokerB = await start('broker', 'broker-b');
    brokerA.process.kill('SIGTERM');
    await brokerA.process.waitForLine(STOPPED_TAKING_WORK);
    // The release is served by broker-b; broker-a's waiter wakes through NOTIFY and finishes.
    await release();
    await expectCommitted(await inFlightAtBroker);
    await expect(brokerA.process.exited).resolves.toEqual({ code: 0, signal: null });
    const servedByA = executedLines(brokerA.process);
    for (let i = 0; i < 3; i++) await expectCommitted(await invoke(other));
    expect(executedLines(brokerA.process)).toBe(servedByA);
    expect(executedLines(brokerB.process)).toBe(3);
    const bMetrics = await scrape(`http://127.0.0.1:${brokerB.healthPort}`);
    expect(
      sample(bMetrics, 'world_effects_total', {
        replica: 'broker-b',
        effect: 'Workspace.Read',
        status: 'ok',
      }),
    ).toBe(3);
  });
});
