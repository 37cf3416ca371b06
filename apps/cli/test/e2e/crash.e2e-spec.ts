/**
 * Crash points of one call (DESIGN.md §6; world-internals §5.5): the broker or ledger runs as a
 * real process started with WORLD_CRASHPOINT and is SIGKILLed by itself at that point. The effect
 * may have run, so the first answer is "effects were requested but the invocation was not
 * confirmed committed" with the records known (world-spec §4.5); after a restart, every resend of
 * the same A2A task id gets that answer too — never "send a new task id" (world-spec §4.5) — and
 * the effect never runs a second time. The log stays dense and
 * hash-linked, spend equals the intents, and the restarted broker reports the indeterminate intent.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryHash } from '@world/canonical';
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
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
  type TestProcess,
} from '@world/testing';

/** A short invocation deadline, so timeouts after a kill take seconds (all shares derive from it). */
const DEADLINE_MS = 4_000;
const UNRECORDED = 'effects were requested but the invocation was not confirmed committed';
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';

const entry = (service: 'broker' | 'ledger') =>
  fileURLToPath(new URL(`../../../${service}/dist/main.js`, import.meta.url));

type Point = 'after-intent' | 'after-handler' | 'before-outcome' | 'inside-commit';
const CASES: Array<[Point, 'broker' | 'ledger', string]> = [
  // [crash point, the service that dies, the file after everything: did the handler run once?]
  ['after-intent', 'broker', 'a'],
  ['after-handler', 'broker', 'ab'],
  ['before-outcome', 'broker', 'ab'],
  ['inside-commit', 'ledger', 'ab'],
];

describe.each(CASES)('a process killed at %s (%s)', (point, victim, fileAfter) => {
  let db: TestDatabase;
  let database: DatabaseHandle;
  let home: string;
  let transport: TransportConfig;
  let rpc: RpcClient;
  const inProcess: RunningService[] = [];
  let child: TestProcess | undefined;
  let url: string;

  const env = () => ({
    NATS_URL: testNatsUrl(),
    DATABASE_URL: db.url,
    WORLD_SUBJECT_PREFIX: (transport as { prefix: string }).prefix,
    WORLD_HOME: join(home, 'home'),
    WORLD_WORKSPACE_ROOT: join(home, 'ws'),
    WORLD_CALL_DEADLINE_MS: String(DEADLINE_MS),
    WORLD_LOG_LEVEL: 'info',
    // a restarted broker reports an orphan whose lease had not lapsed yet at its next sweep
    WORLD_ORPHAN_SWEEP_MS: '500',
  });

  beforeAll(async () => {
    db = await createTestDatabase('crash');
    database = await openPostgres(db.url);
    home = await mkdtemp(join(tmpdir(), 'world-crash-'));
    transport = { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('crash') };
    // The victim runs as a process; the rest of World runs here on the same NATS and PostgreSQL.
    child = startNode(entry(victim), [], { ...env(), WORLD_CRASHPOINT: point });
    await child.waitForLine(/"msg":"ready"/, 30_000);
    if (victim !== 'ledger') inProcess.push(await startLedger({ transport, database }));
    if (victim !== 'broker') {
      inProcess.push(
        await startBroker({
          transport,
          database,
          worldHome: join(home, 'home'),
          workspaceRoot: join(home, 'ws'),
          callDeadlineMs: DEADLINE_MS,
        }),
      );
    }
    inProcess.push(await startPlanner({ transport, callDeadlineMs: DEADLINE_MS }));
    const gateway = await startGateway({
      transport,
      bind: '127.0.0.1:0',
      worldHome: join(home, 'home'),
      callDeadlineMs: DEADLINE_MS,
    });
    inProcess.push(gateway);
    url = gateway.url;
    rpc = await connectRpc(transport, 'crash-test');
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await child?.exited;
    await rpc?.close();
    for (const s of inProcess.reverse()) await s.close();
    await database?.close();
    await db?.drop();
    await rm(home, { recursive: true, force: true });
  });

  const tasksSend = async (token: string, id: string, args: Record<string, unknown>) => {
    const res = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tasks/send',
        params: {
          id,
          metadata: { skill_id: 'ailang-edit' },
          message: { role: 'user', parts: [{ type: 'data', data: args }] },
        },
      }),
    });
    return (await res.json()) as {
      result?: { status: { state: string } };
      error?: { code: number; message: string };
    };
  };

  it('answers "effects were requested …" first and on every resend, and never runs the effect twice', async () => {
    const src = await mkdtemp(join(tmpdir(), 'world-crash-src-'));
    await writeFile(join(src, 'count.txt'), 'a');
    const { worktree } = await rpc.request(
      'broker.episode.create',
      { episodeId: 'ep1', source: { kind: 'copy', dir: src } },
      { timeoutMs: 10_000 },
    );
    const { token } = await rpc.request(
      'broker.session.mint',
      {
        episodeId: 'ep1',
        grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget: 10 }],
        ttlSeconds: 600,
      },
      { timeoutMs: 10_000 },
    );
    const args = { path: 'count.txt', old_text: 'a', new_text: 'ab' };
    const headBefore = await rpc.request('ledger.head', {}, { timeoutMs: 5_000 }).catch(() => null);

    const first = await tasksSend(token, 't1', args);
    const died = await child!.exited;
    expect(died.signal).toBe('SIGKILL');

    // Restart the victim without the crash point; a restarted broker reports the intent.
    child = startNode(entry(victim), [], env());
    await child.waitForLine(/"msg":"ready"/, 30_000);
    if (victim === 'broker') {
      const report = await child.waitForLine(/indeterminate effect intent/, 10_000);
      expect(report).toContain('a2a:ep1:t1');
    }
    // The records known: the broker's, when it wrote one before the crash (none for a broker
    // killed before its outcome; the ledger's crash comes after the record).
    const { items: known } = await rpc.request(
      'broker.effect.byInvocation',
      { invocationId: 'a2a:ep1:t1' },
      { timeoutMs: 5_000 },
    );
    const unrecorded = {
      code: -32603,
      message: `${UNRECORDED}; effect records: ${known[0]?.recordRef ?? '(none recorded yet)'}`,
    };
    expect(known[0]?.recordRef === null).toBe(victim === 'broker');
    expect(first.error).toEqual(unrecorded);

    // A resend never runs the edit again: "not confirmed; resend the same task id" while the
    // first attempt's claim is live (its commit might still land), then the same answer for good.
    let resend = await tasksSend(token, 't1', args);
    const until = Date.now() + 3 * DEADLINE_MS;
    while (resend.error?.message === UNCERTAIN && Date.now() < until) {
      expect(resend.error).toEqual({ code: -32603, message: UNCERTAIN });
      await new Promise((r) => setTimeout(r, 250));
      resend = await tasksSend(token, 't1', args);
    }
    expect(resend.error).toEqual(unrecorded);
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe(fileAfter);
    expect((await tasksSend(token, 't1', args)).error).toEqual(unrecorded);
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe(fileAfter);

    // Exactly one intent for the invocation, and spend equals it.
    const intents = await rpc.request(
      'broker.effect.byInvocation',
      { invocationId: 'a2a:ep1:t1' },
      { timeoutMs: 5_000 },
    );
    expect(intents.items.map((i) => [i.ordinal, i.effect, i.cost])).toEqual([
      [0, 'Workspace.Write', 1],
    ]);
    const spent = await database.db.execute(
      "SELECT spent FROM broker.spend WHERE episode_id = 'ep1' AND effect = 'Workspace.Write'" as never,
    );
    expect(
      (spent as unknown as { rows: Array<{ spent: number | string }> }).rows.map((r) =>
        Number(r.spent),
      ),
    ).toEqual([1]);

    // Nothing was committed for t1, and the log is dense and hash-linked.
    const head = await rpc.request('ledger.head', {}, { timeoutMs: 5_000 });
    if (headBefore !== null) expect(head.entryIndex).toBe(headBefore.entryIndex);
    const { items } = await rpc.request(
      'ledger.log.range',
      { from: 0, limit: 500 },
      { timeoutMs: 5_000 },
    );
    expect(items.map((e) => e.header.entryIndex)).toEqual([...Array(head.entryIndex! + 1).keys()]);
    items.forEach((e, i) => {
      expect(e.entryHash).toBe(entryHash(e.header, e.transitionRef));
      if (i > 0) expect(e.header.prevEntryHash).toBe(items[i - 1]!.entryHash);
    });

    // A new task id runs normally afterwards.
    const fresh = await tasksSend(token, 't2', {
      path: 'count.txt',
      old_text: fileAfter,
      new_text: `${fileAfter}c`,
    });
    expect(fresh.result?.status.state).toBe('completed');
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe(`${fileAfter}c`);
    await rm(src, { recursive: true, force: true });
  });
});
