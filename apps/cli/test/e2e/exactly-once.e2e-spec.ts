/**
 * Exactly-once at the edges (README "Exactly-once over MCP"; DESIGN.md §2; world-spec §4.5,
 * §6.5; world-internals §5.5, §12 #24), on `world up` with two gateways and two planners, every
 * service a real process on the test PostgreSQL and NATS:
 * - a commit slower than the call's deadline (another transaction holds `LOCK TABLE
 *   ledger.log_entries IN EXCLUSIVE MODE`) is given up: the answer names the effect record, every
 *   resend gets the same answer (never "send a new task id"), and the late commit never lands;
 * - a ledger SIGKILLed while a commit waits and restarted within the deadline: the planner's
 *   commit is retried and lands once; not restarted in time: "effects were requested …" with the
 *   record, and no later answer invites a new task id;
 * - a resend while the commit waits after the effect ran, its planner alive (A2A and MCP keyed
 *   calls), hears "not confirmed; resend the same task id", and once the lock frees the committed
 *   result: one entry, one intent, spend 1.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@world/testing';
import { invocationIdOf, KEYED_CASES, type KeyedSurface } from '../support/keyed-surfaces.js';
import { startUpWorld, type JsonRpcAnswer, type UpWorld } from '../support/up-world.js';

/** Short enough to keep the test quick, long enough for a ledger to restart within it. */
const DEADLINE_MS = 8_000;
const UNRECORDED = 'effects were requested but the invocation was not confirmed committed';
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';
const HELD_WRITE = { path: 'notes.txt', content: 'held\n' };
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];

describe('exactly-once on world up (gateway=2, planner=2, broker=1, ledger=1)', () => {
  let w: UpWorld;

  beforeAll(async () => {
    w = await startUpWorld('once', 'gateway=2,planner=2,broker=1,ledger=1', DEADLINE_MS);
  }, 120_000);

  // A lock a failed test left would stop every later commit.
  afterEach(async () => {
    await w?.releaseLocks();
  });

  afterAll(async () => {
    await w?.close();
  }, 60_000);

  /** Holds `LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE` in a transaction of its own. */
  const lockLog = () => w.holdLock('LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE');
  const recordOf = async (invocationId: string) => {
    const { items } = await w.rpc.request(
      'broker.effect.byInvocation',
      { invocationId },
      { timeoutMs: 5_000 },
    );
    return items;
  };
  const journalRow = (invocationId: string) =>
    w.journalRow(invocationId, ['state', 'end_reason', 'entry_index']);
  const headIndex = async () =>
    Number((await w.q<{ i: string }>(`SELECT entry_index AS i FROM ledger.heads`))[0]!.i);
  const unrecorded = (record: string): JsonRpcAnswer => ({
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32603, message: `${UNRECORDED}; effect records: ${record}` },
  });
  const edit = (from: string, to: string) => ({ path: 'count.txt', old_text: from, new_text: to });

  it('gives a commit slower than the deadline up: the record in every answer, and the late commit never lands', async () => {
    const { worktree, token } = await w.episode('ep-slow', { 'count.txt': 'a' }, WRITE);
    const before = await headIndex();
    const unlock = await lockLog();
    const first = await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 0);
    const intents = await recordOf('a2a:ep-slow:t1');
    expect(intents.map((i) => [i.ordinal, i.status])).toEqual([[0, 'succeeded']]);
    const record = intents[0]!.recordRef!;
    expect(first).toEqual(unrecorded(record));
    // While the first commit still waits on the lock, a resend through the other gateway.
    expect(await w.lockWaiters()).toBeGreaterThan(0);
    expect(await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 1)).toEqual(
      unrecorded(record),
    );
    // MCP with an idempotency key: the same law and the same answer, naming its own record.
    const mcp = await w.mcpCall(token, 'm1', 'ailang-edit', edit('ab', 'abm'), 1);
    const [mcpRecord] = (await recordOf('mcp:ep-slow:m1')).map((i) => i.recordRef);
    expect(mcp).toEqual({ ...unrecorded(mcpRecord!), id: 9 });
    await unlock();
    // Every statement that waited has run (and was refused).
    await w.waitForNoLockWaiter();
    const fresh = await w.tasksSend(token, 't2', 'ailang-edit', edit('abm', 'abmc'), 0);
    expect(fresh.result?.status).toEqual({ state: 'completed' });
    expect(await headIndex()).toBe(before + 1);
    expect(await journalRow('a2a:ep-slow:t1')).toEqual({
      state: 'ended',
      end_reason: 'uncertain',
      entry_index: null,
    });
    expect(await journalRow('mcp:ep-slow:m1')).toEqual({
      state: 'ended',
      end_reason: 'uncertain',
      entry_index: null,
    });
    expect(await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 0)).toEqual(
      unrecorded(record),
    );
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('abmc');
    expect(
      (
        await w.q(
          `SELECT invocation_id, cost::int AS cost FROM broker.effect_intents
            WHERE episode_id = 'ep-slow' ORDER BY ordinal`,
        )
      ).map((r) => [r.invocation_id, r.cost]),
    ).toEqual([
      ['a2a:ep-slow:t1', 1],
      ['mcp:ep-slow:m1', 1],
      ['a2a:ep-slow:t2', 1],
    ]);
  }, 60_000);

  /** Task t1's held write through `surface` and gateway `gateway`. */
  const sendHeld = (surface: KeyedSurface, token: string, gateway: number) =>
    surface.send(w, token, 't1', 'ailang-write', HELD_WRITE, gateway);

  it.each(KEYED_CASES)(
    '%s: a resend while the commit waits after the effect (planner alive) hears "not confirmed", then the committed result',
    async (_name, surface, index) => {
      const ep = `ep-held-${index}`;
      const invocationId = invocationIdOf(surface, ep, 't1');
      const { worktree, token } = await w.episode(ep, {}, WRITE);
      const before = await headIndex();
      const unlock = await lockLog();
      const first = sendHeld(surface, token, 0);
      // The effect ran (the broker holds its intent) and the commit waits on the lock.
      await eventually(
        async () => ((await recordOf(invocationId)).length === 1 ? true : undefined),
        10_000,
        'the effect intent',
      );
      await w.waitForLockWaiter();
      // A resend through either gateway (either planner, the claim's holder among them, both
      // alive): the first commit may still land, so "resend the same task id" — never "task id
      // already used", whose advice of a new id would run the write twice.
      const uncertain: JsonRpcAnswer = {
        jsonrpc: '2.0',
        id: surface.id,
        error: { code: -32603, message: UNCERTAIN },
      };
      expect(await sendHeld(surface, token, 0)).toEqual(uncertain);
      // Again once the first commit attempt has timed out (postEffectMs, 1.6 s at this deadline)
      // and is being retried, as a client resending after a few seconds would.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await sendHeld(surface, token, 1)).toEqual(uncertain);
      expect(await w.lockWaiters()).toBeGreaterThan(0);
      expect(await journalRow(invocationId)).toEqual({
        state: 'claimed',
        end_reason: null,
        entry_index: null,
      });
      await unlock();
      const committed = await first;
      expect(committed.error).toBeUndefined();
      expect(await sendHeld(surface, token, 1)).toEqual(committed);
      expect(await sendHeld(surface, token, 0)).toEqual(committed);
      expect(await headIndex()).toBe(before + 1);
      expect(await journalRow(invocationId)).toEqual({
        state: 'committed',
        end_reason: null,
        entry_index: String(before + 1),
      });
      expect(await readFile(join(worktree, HELD_WRITE.path), 'utf8')).toBe(HELD_WRITE.content);
      expect(
        (await recordOf(invocationId)).map((i) => [i.ordinal, i.effect, i.status, i.cost]),
      ).toEqual([[0, 'Workspace.Write', 'succeeded', 1]]);
      expect(
        (
          await w.q(`SELECT effect, spent::int AS spent FROM broker.spend WHERE episode_id = $1`, [
            ep,
          ])
        ).map((r) => [r.effect, r.spent]),
      ).toEqual([['Workspace.Write', 1]]);
    },
    60_000,
  );

  const ledger = () => w.up.processes.find((p) => p.service === 'ledger')!;

  it('retries the commit while a SIGKILLed ledger restarts within the deadline: it lands once', async () => {
    const { worktree, token } = await w.episode('ep-restart', { 'count.txt': 'a' }, WRITE);
    const before = await headIndex();
    const unlock = await lockLog();
    const answer = w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 1);
    await w.waitForLockWaiter();
    const victim = ledger();
    victim.child.kill('SIGKILL');
    await victim.exited;
    // The dead ledger's statement is cancelled by its backend (client_connection_check_interval)
    // before the lock frees: nothing of it lands.
    await w.waitForNoLockWaiter();
    await unlock();
    await w.up.respawn(victim.replica).ready;
    const first = await answer;
    expect(first.result?.status).toEqual({ state: 'completed' });
    expect(first.result?.metadata).toMatchObject({
      invocation_id: 'a2a:ep-restart:t1',
      entry_index: before + 1,
    });
    expect(await headIndex()).toBe(before + 1);
    expect(await journalRow('a2a:ep-restart:t1')).toEqual({
      state: 'committed',
      end_reason: null,
      entry_index: String(before + 1),
    });
    const again = await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 0);
    expect(again.result?.metadata).toEqual(first.result?.metadata);
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('ab');
  }, 60_000);

  it('answers "effects were requested …" when the ledger dies with the commit, and never invites a new task id', async () => {
    const { worktree, token } = await w.episode('ep-dead', { 'count.txt': 'a' }, WRITE);
    const before = await headIndex();
    const unlock = await lockLog();
    const answer = w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 0);
    await w.waitForLockWaiter();
    const victim = ledger();
    victim.child.kill('SIGKILL');
    await victim.exited;
    // The dead ledger's statement is cancelled by its backend (client_connection_check_interval)
    // before the lock frees: nothing of it lands.
    await w.waitForNoLockWaiter();
    await unlock();
    const intents = await recordOf('a2a:ep-dead:t1');
    expect(intents.map((i) => [i.ordinal, i.status])).toEqual([[0, 'succeeded']]);
    const record = intents[0]!.recordRef!;
    expect(await answer).toEqual(unrecorded(record));
    await w.up.respawn(victim.replica).ready;
    // The claim is live until it lapses (its commit may still land: resend the same task id),
    // then the record, for good.
    let resend = await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 1);
    const until = Date.now() + 2 * DEADLINE_MS;
    while (resend.error?.message === UNCERTAIN && Date.now() < until) {
      expect(resend).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32603, message: UNCERTAIN },
      });
      await new Promise((r) => setTimeout(r, 250));
      resend = await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 1);
    }
    expect(resend).toEqual(unrecorded(record));
    expect(await w.tasksSend(token, 't1', 'ailang-edit', edit('a', 'ab'), 0)).toEqual(
      unrecorded(record),
    );
    expect(await headIndex()).toBe(before);
    expect(await journalRow('a2a:ep-dead:t1')).toEqual({
      state: 'claimed',
      end_reason: null,
      entry_index: null,
    });
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('ab');
  }, 60_000);
});
