/**
 * A broker stopped (SIGSTOP) with an execute request still unread in its connection, resumed
 * after its planner gave the call up (DESIGN.md §2 "Per-episode serialization"; world-spec
 * §4.5; world-internals §5.5): the request carries its caller's `startBy`, so the resumed broker
 * refuses it unread — no intent, no spend, the file untouched — and the later call on the same
 * episode and file, made once it runs again, is the only edit. The first call's answers never
 * invite a new task id, and its resend runs it once. On `world up` with one broker, every
 * service a real process on the test PostgreSQL and NATS.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startUpWorld, type UpWorld } from '../support/up-world.js';

const DEADLINE_MS = 8_000;
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];
const UNRECORDED =
  'effects were requested but the invocation was not confirmed committed; effect records: (none recorded yet)';

describe('a broker stopped with an execute request unread, resumed after its planner gave up (world up, broker=1)', () => {
  let w: UpWorld;

  beforeAll(async () => {
    w = await startUpWorld('bstalled', 'gateway=1,planner=1,broker=1,ledger=1', DEADLINE_MS);
  }, 120_000);

  afterAll(async () => {
    const broker = w?.up.processes.find((p) => p.service === 'broker');
    broker?.child.kill('SIGCONT');
    await w?.close();
  }, 60_000);

  const intents = async (ep: string) =>
    (
      await w.q<{ task: string; status: string | null }>(
        `SELECT split_part(i.invocation_id, ':', 3) AS task, o.status
           FROM broker.effect_intents i
           LEFT JOIN broker.effect_outcomes o USING (episode_id, ordinal)
          WHERE i.episode_id = $1 ORDER BY i.ordinal`,
        [ep],
      )
    ).map((r) => [r.task, r.status]);

  const edit = (old_text: string, new_text: string) => ({ path: 'count.txt', old_text, new_text });

  it('refuses the late request unread: no intent, no spend, the later edit is the only one; the resend runs once', async () => {
    const ep = 'stalled';
    const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
    const broker = w.up.processes.find((p) => p.service === 'broker')!;
    // The call's claim waits on the journal's lock (its session already resolved by the broker);
    // the broker is stopped there, then the lock freed: the planner's execute request reaches the
    // stopped broker and stays unread in its connection.
    const unlock = await w.holdLock('LOCK TABLE ledger.commit_journal IN EXCLUSIVE MODE');
    let firstAnswer;
    try {
      firstAnswer = w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'));
      await w.waitForLockWaiter('the claim waiting on the lock');
      broker.child.kill('SIGSTOP');
    } finally {
      await unlock();
    }
    expect(await firstAnswer).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: UNRECORDED },
    });
    broker.child.kill('SIGCONT');
    // The later call on the same file, through the resumed broker: its request comes after the
    // stale one on the broker's connection.
    const later = await w.tasksSend(token, 't2', 'ailang-edit', edit('a', 'ac'));
    expect(later.error).toBeUndefined();
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('ac');
    expect(await intents(ep)).toEqual([['t2', 'succeeded']]);
    // The first call's resend: nothing of it ran, so it runs now, once.
    const resend = await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'));
    expect(resend.error).toBeUndefined();
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('abc');
    expect(await intents(ep)).toEqual([
      ['t2', 'succeeded'],
      ['t1', 'succeeded'],
    ]);
    expect(await w.spent(ep)).toEqual([['Workspace.Write', 2]]);
  }, 120_000);
});
