/**
 * A broker paused right after its effect's intent landed, resumed once its episode lease lapsed
 * and a later call's write committed (DESIGN.md §2 "Per-episode serialization"; world-internals
 * §5.2: an effect runs under the fence that admitted it, or not at all), on `world up` with two
 * brokers, every service a real process on the test PostgreSQL and a NATS server of this suite:
 * - another transaction holds `LOCK TABLE broker.effect_intents IN EXCLUSIVE MODE`, so the first
 *   write's tx1 waits; the broker replica whose connection waits is SIGSTOPped, then the lock is
 *   released: the intent lands and the lease tx1 took runs out while that broker sleeps;
 * - NATS drops the sleeping broker (this server pings every second and gives a client three
 *   unanswered pings), so the later write reaches the other broker, which takes the lapsed lease
 *   and commits;
 * - the sleeping broker, SIGCONTed, never starts the stale handler: its outcome is `failed` (its
 *   lines say the lease lapsed), the file keeps the later content, the spend equals the intents.
 * Resumed while its planner still waits, the stale call commits after the later one with its
 * effect failed (`world why` verifies both entries); resumed after its planner gave up, it has no
 * entry and every answer for its task id names its effect records — none invites a new task id.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@world/testing';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { startFastPingNats, type FastPingNats } from '../support/fast-ping-nats.js';
import { startUpWorld, type UpWorld } from '../support/up-world.js';

/**
 * The planner gives an execute up about DEADLINE_MS − postEffectMs + 1 s (≈ 13.8 s) after the
 * call began: the first case resumes the broker some 5 s in, well before; the second waits for
 * the planner's "effect execution did not answer" line.
 */
const DEADLINE_MS = 16_000;
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 10 }];

describe('a broker paused between its intent and its handler, past its lease (world up, broker=2)', () => {
  let nats: FastPingNats;
  let w: UpWorld;

  beforeAll(async () => {
    requireBuiltCli();
    nats = await startFastPingNats();
    w = await startUpWorld('stale', 'gateway=1,planner=1,broker=2,ledger=1', DEADLINE_MS, {
      NATS_URL: nats.url,
    });
  }, 120_000);

  afterAll(async () => {
    await w?.releaseLocks();
    for (const p of w?.up.processes ?? []) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGCONT');
    }
    await w?.close();
    await nats?.stop();
  }, 60_000);

  /** The `world up` replica whose PostgreSQL connection waits on a lock (its application_name). */
  const lockWaiter = async () => {
    const rows = await w.q<{ app: string }>(
      `SELECT application_name AS app FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND application_name LIKE 'world-broker-%'`,
    );
    return w.up.processes.find((p) => `world-${p.replica}` === rows[0]?.app);
  };
  /** How many open NATS connections subscribe to `broker.effect.execute` (the queue group). */
  const executeSubscribers = () =>
    nats.subscribers(`${w.env.WORLD_SUBJECT_PREFIX}.broker.effect.execute`);
  const intentsOf = (ep: string) =>
    w.q<{ task: string; status: string | null }>(
      `SELECT split_part(i.invocation_id, ':', 3) AS task, o.status
         FROM broker.effect_intents i LEFT JOIN broker.effect_outcomes o USING (episode_id, ordinal)
        WHERE i.episode_id = $1 ORDER BY i.ordinal`,
      [ep],
    );

  const tasksOf = (ep: string) =>
    w.q<{ task: string; state: string; end_reason: string | null; entry: number | null }>(
      `SELECT split_part(invocation_id, ':', 3) AS task, state, end_reason,
              entry_index::int AS entry
         FROM ledger.commit_journal WHERE invocation_id LIKE $1 ORDER BY invocation_id`,
      [`a2a:${ep}:%`],
    );
  const writeA = (token: string) =>
    w.tasksSend(token, 'T12', 'ailang-write', { path: 'g1.txt', content: 'A-stale\n' });
  /** The broker's one failed effect of `invocationId`: its record ref. */
  const failedRecord = async (invocationId: string) => {
    const { items } = await w.rpc.request(
      'broker.effect.byInvocation',
      { invocationId },
      { timeoutMs: 5_000 },
    );
    expect(items.map((i) => [i.ordinal, i.effect, i.scope, i.cost, i.status])).toEqual([
      [0, 'Workspace.Write', 'worktree', 1, 'failed'],
    ]);
    return items[0]!.recordRef!;
  };
  /** `world why <index>` as a process, with the operator credential: its exit, stderr, verdict. */
  const why = async (index: number) => {
    const r = await runCli(['why', String(index)], {
      WORLD_URL: w.up.gateways[0],
      WORLD_HOME: w.env.WORLD_HOME,
    });
    const out = r.stdout.split('\n').filter((l) => l !== '');
    return [r.code, r.stderr, out[0], out.at(-1)];
  };

  /**
   * T12's write reaches a broker whose tx1 waits on the intents' table lock; that broker is
   * stopped, the lock released (the intent lands), NATS drops the broker, and T13's write
   * commits through the other one. Answers the stopped broker, T12's pending answer and T13's
   * entry index; the file holds T13's content.
   */
  async function staleAndLater(ep: string, token: string, file: string) {
    expect(await executeSubscribers()).toBe(2);
    // EXCLUSIVE conflicts with the ROW EXCLUSIVE lock tx1's intent INSERT takes: tx1 waits.
    const unlock = await w.holdLock('LOCK TABLE broker.effect_intents IN EXCLUSIVE MODE');
    const first = writeA(token);
    const stale = await eventually(lockWaiter, 10_000, 'a broker waiting at its intent');
    stale.child.kill('SIGSTOP');
    await unlock();
    // The intent lands while its broker sleeps (its lease then runs out); NATS drops the broker.
    await eventually(
      async () => ((await intentsOf(ep)).length === 1 ? true : undefined),
      10_000,
      'the stale intent',
    );
    await eventually(
      async () => ((await executeSubscribers()) === 1 ? true : undefined),
      15_000,
      'NATS dropping the stopped broker',
    );
    const later = await w.tasksSend(token, 'T13', 'ailang-write', {
      path: 'g1.txt',
      content: 'B-later\n',
    });
    expect(later.error).toBeUndefined();
    const entry = later.result?.metadata?.entry_index as number;
    expect(typeof entry).toBe('number');
    expect(await readFile(file, 'utf8')).toBe('B-later\n');
    return { stale, first, entry };
  }

  /**
   * Resumes the stopped broker and waits for its one `effect executed` line of `invocationId`
   * (written after its outcome row) and for it to be back on NATS; answers that broker's lines
   * of the call ([msg, status or reason]).
   */
  async function resume(stale: (typeof w.up.processes)[number], invocationId: string) {
    stale.child.kill('SIGCONT');
    const linesOf = () =>
      w.lines
        .filter((l) => l.replica === stale.replica && l.line.includes(`"${invocationId}"`))
        .map((l) => JSON.parse(l.line) as Record<string, unknown>)
        .filter((r) => r.msg === 'effect executed' || r.msg === 'effect handler failed')
        .map((r) => [r.msg, r.status ?? r.reason]);
    await eventually(
      () => (linesOf().some(([msg]) => msg === 'effect executed') ? true : undefined),
      20_000,
      'the stale outcome',
    );
    await eventually(
      async () => ((await executeSubscribers()) === 2 ? true : undefined),
      20_000,
      'the resumed broker back on NATS',
    );
    return linesOf();
  }
  const LAPSED_LINES = [
    [
      'effect handler failed',
      'the episode lease lapsed before the handler could start; the effect did not run',
    ],
    ['effect executed', 'failed'],
  ];

  it('resumed while its planner waits: the stale write never runs, and the call commits it failed', async () => {
    const ep = 'ep-waiting';
    const invocationId = `a2a:${ep}:T12`;
    const { worktree, token } = await w.episode(ep, {}, WRITE);
    const file = join(worktree, 'g1.txt');
    const { stale, first, entry } = await staleAndLater(ep, token, file);

    const staleLines = await resume(stale, invocationId);
    expect(await readFile(file, 'utf8')).toBe('B-later\n');
    expect(await intentsOf(ep)).toEqual([
      { task: 'T12', status: 'failed' },
      { task: 'T13', status: 'succeeded' },
    ]);
    expect(staleLines).toEqual(LAPSED_LINES);
    const record = await failedRecord(invocationId);
    // The planner still waited: T12 commits after T13, its effect failed; resends replay it.
    const answer = await first;
    const head = (await w.q<{ ref: string }>(`SELECT world_ref AS ref FROM ledger.heads`))[0]!;
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        id: 'T12',
        status: { state: 'completed' },
        artifacts: [
          {
            parts: [
              {
                type: 'data',
                data: {
                  world: {
                    effects: [{ id: 'e1', record, status: 'failed' }],
                    plan: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
                  },
                },
              },
            ],
          },
        ],
        metadata: { invocation_id: invocationId, world_ref: head.ref, entry_index: entry + 1 },
      },
    });
    expect(await writeA(token)).toEqual(answer);
    expect(await readFile(file, 'utf8')).toBe('B-later\n');
    expect(await w.spent(ep)).toEqual([['Workspace.Write', 2]]);
    expect(await tasksOf(ep)).toEqual([
      { task: 'T12', state: 'committed', end_reason: null, entry: entry + 1 },
      { task: 'T13', state: 'committed', end_reason: null, entry },
    ]);
    expect(await why(entry)).toEqual([0, '', `why: entry ${entry}`, 'all 8 link(s) verified']);
    expect(await why(entry + 1)).toEqual([
      0,
      '',
      `why: entry ${entry + 1}`,
      'all 8 link(s) verified',
    ]);
  }, 60_000);

  it('resumed after its planner gave up: the stale write never runs, and no answer invites a new task id', async () => {
    const ep = 'ep-given-up';
    const invocationId = `a2a:${ep}:T12`;
    const { worktree, token } = await w.episode(ep, {}, WRITE);
    const file = join(worktree, 'g1.txt');
    const { stale, first, entry } = await staleAndLater(ep, token, file);
    await w.waitForLine(
      (l) =>
        l.line.includes('"msg":"effect execution did not answer"') &&
        l.line.includes(`"invocationId":"${invocationId}"`),
      30_000,
      'the planner giving the execute up',
    );
    const unrecorded = (records: string) => ({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message: `effects were requested but the invocation was not confirmed committed; effect records: ${records}`,
      },
    });
    // Before the broker resumes nothing records the effect; after, its failed record.
    expect(await first).toEqual(unrecorded('(none recorded yet)'));
    expect(await writeA(token)).toEqual(unrecorded('(none recorded yet)'));
    const staleLines = await resume(stale, invocationId);
    expect(await readFile(file, 'utf8')).toBe('B-later\n');
    expect(await intentsOf(ep)).toEqual([
      { task: 'T12', status: 'failed' },
      { task: 'T13', status: 'succeeded' },
    ]);
    expect(staleLines).toEqual(LAPSED_LINES);
    const record = await failedRecord(invocationId);
    expect(await writeA(token)).toEqual(unrecorded(record));
    expect(await writeA(token)).toEqual(unrecorded(record));
    expect(await readFile(file, 'utf8')).toBe('B-later\n');
    expect(await w.spent(ep)).toEqual([['Workspace.Write', 2]]);
    expect(await tasksOf(ep)).toEqual([
      { task: 'T12', state: 'ended', end_reason: 'uncertain', entry: null },
      { task: 'T13', state: 'committed', end_reason: null, entry },
    ]);
    expect(await why(entry)).toEqual([0, '', `why: entry ${entry}`, 'all 8 link(s) verified']);
  }, 60_000);
});
