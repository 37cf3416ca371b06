/**
 * A call whose planner is stopped (SIGSTOP, not killed) after it took the call, and stays
 * stopped past the call's deadline (DESIGN.md §2 "While the outcome of a commit is unknown, every
 * answer about that invocation says 'not confirmed; resend the same task id'"; world-spec §4.5,
 * §6.5; world-internals §5.5, §12 #24), on `world up` with one planner, every service a real
 * process on the test PostgreSQL and NATS. Another transaction holds `LOCK TABLE
 * ledger.log_entries IN EXCLUSIVE MODE`, so the call's commit waits at the ledger after its edit
 * ran; the planner is stopped there and the lock freed: the commit lands while the planner sleeps.
 * - A keyed call (A2A `tasks/send`, MCP with `_meta["world/taskId"]`) is answered at the deadline
 *   `invocation outcome is not confirmed; resend the same task id` — a stopped planner may still
 *   resume and commit, so the reference's deadline text would hide that — and once the planner
 *   runs again the resend answers the committed result: one entry, one intent, spend 1.
 * - An unkeyed MCP call keeps the reference's `host callback timed out`; its entry is in the log.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@world/testing';
import { invocationIdOf, KEYED_CASES } from '../support/keyed-surfaces.js';
import { startUpWorld, type JsonRpcAnswer, type UpWorld } from '../support/up-world.js';

const DEADLINE_MS = 8_000;
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];
const edit = { path: 'count.txt', old_text: 'a', new_text: 'ab' };

describe('a call whose planner is SIGSTOPped after it took it, past the deadline (world up, planner=1)', () => {
  let w: UpWorld;

  beforeAll(async () => {
    w = await startUpWorld('pstalled', 'gateway=1,planner=1,broker=1,ledger=1', DEADLINE_MS);
  }, 120_000);

  afterEach(async () => {
    await w?.releaseLocks();
    planner()?.child.kill('SIGCONT');
  });

  afterAll(async () => {
    await w?.close();
  }, 60_000);

  const planner = () => w?.up.processes.find((p) => p.service === 'planner');
  /** The log entries of episode `ep`'s calls: [invocation id, entry index]. */
  const entriesOf = (ep: string) =>
    w.q<{ invocation_id: string; entry_index: string }>(
      `SELECT invocation_id, entry_index FROM ledger.timeline WHERE episode_id = $1
        ORDER BY entry_index`,
      [ep],
    );
  const countIn = async (worktree: string) => readFile(join(worktree, 'count.txt'), 'utf8');

  /**
   * Sends the call, waits until its edit ran and its commit waits on the log's lock, stops the
   * planner and frees the lock: the commit lands while the planner sleeps (its one entry).
   * Answers the pending first answer and the entry's invocation id and index.
   */
  async function stallAfterCommit(
    ep: string,
    worktree: string,
    send: () => Promise<JsonRpcAnswer>,
  ) {
    const unlock = await w.holdLock('LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE');
    const first = send();
    await eventually(
      async () => ((await countIn(worktree)) === 'ab' ? true : undefined),
      20_000,
      'the edit ran',
    );
    await w.waitForLockWaiter('the commit waiting');
    planner()!.child.kill('SIGSTOP');
    await unlock();
    const [entry] = await eventually(
      async () => {
        const rows = await entriesOf(ep);
        return rows.length > 0 ? rows : undefined;
      },
      10_000,
      'the commit landed',
    );
    return { first, entry: entry! };
  }

  it.each(KEYED_CASES)(
    '%s: "not confirmed; resend the same task id" at the deadline, then the committed result',
    async (_name, surface, index) => {
      const ep = `ep-stalled-${index}`;
      const invocationId = invocationIdOf(surface, ep, 't1');
      const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
      const send = () => surface.send(w, token, 't1', 'ailang-edit', edit);
      const { first, entry } = await stallAfterCommit(ep, worktree, send);
      expect(entry.invocation_id).toBe(invocationId);
      expect(await first).toEqual({
        jsonrpc: '2.0',
        id: surface.id,
        error: { code: -32603, message: UNCERTAIN },
      });
      planner()!.child.kill('SIGCONT');
      const resend = await send();
      expect(resend.error).toBeUndefined();
      expect(surface.entryOf(resend)).toBe(Number(entry.entry_index));
      expect(surface.entryOf(await send())).toBe(Number(entry.entry_index));
      expect(await countIn(worktree)).toBe('ab');
      expect(await entriesOf(ep)).toEqual([entry]);
      expect(
        await w.q(`SELECT invocation_id FROM broker.effect_intents WHERE episode_id = $1`, [ep]),
      ).toEqual([{ invocation_id: invocationId }]);
      expect(await w.journalRow(invocationId, ['state', 'entry_index'])).toEqual({
        state: 'committed',
        entry_index: entry.entry_index,
      });
      expect(await w.spent(ep)).toEqual([['Workspace.Write', 1]]);
    },
    120_000,
  );

  it('an unkeyed MCP call: "host callback timed out" at the deadline; its entry is in the log', async () => {
    const ep = 'ep-stalled-unkeyed';
    const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
    const { first, entry } = await stallAfterCommit(ep, worktree, () =>
      w.mcpCall(token, undefined, 'ailang-edit', edit),
    );
    expect(entry.invocation_id).toMatch(new RegExp(`^mcp:${ep}:`));
    expect(await first).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32603, message: 'host callback timed out' },
    });
    planner()!.child.kill('SIGCONT');
    expect(await countIn(worktree)).toBe('ab');
    expect(await entriesOf(ep)).toEqual([entry]);
    expect(await w.spent(ep)).toEqual([['Workspace.Write', 1]]);
  }, 120_000);
});
