/**
 * A planner SIGKILLed after its keyed call's effect ran and before the ledger commit (README
 * "Exactly-once over MCP"; DESIGN.md §2; world-spec §4.5, §6.5; world-internals §5.5, §12 #24),
 * on `world up` with two planners, every service a real process on the test PostgreSQL and NATS.
 * Another transaction holds `LOCK TABLE ledger.log_entries IN EXCLUSIVE MODE`, so the call's
 * commit waits at the ledger when the planner that holds its claim is killed:
 * - the killed planner's own caller is answered `invocation outcome is not confirmed; resend the
 *   same task id` once the gateway sees the claim's holder gone — not the deadline's answer;
 * - a resend while the claim is live gets the same; once the claim lapsed (the late commit can
 *   no longer bind it) every resend gets `effects were requested …` with the broker's record;
 * - the broker's sweep names the outcome whose invocation never committed, once;
 * - rows: one intent, outcome and record, spend 1, no entry, the journal row claimed and lapsed.
 * MCP with `_meta["world/taskId"]` and A2A `tasks/send` each get one episode.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@world/testing';
import { invocationIdOf, KEYED_CASES, type KeyedSurface } from '../support/keyed-surfaces.js';
import { startUpWorld, type JsonRpcAnswer, type UpWorld } from '../support/up-world.js';

/** Short enough to keep the test quick; the claim lapses 1.1 × this after it was taken. */
const DEADLINE_MS = 8_000;
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';
const UNRECORDED = 'effects were requested but the invocation was not confirmed committed';
const UNCOMMITTED_LINE = 'effect outcome whose invocation never committed';
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];

describe('a planner SIGKILLed between a keyed call effect and its commit (world up, planner=2)', () => {
  let w: UpWorld;

  beforeAll(async () => {
    w = await startUpWorld('pdeath', 'gateway=1,planner=2,broker=1,ledger=1', DEADLINE_MS, {
      WORLD_ORPHAN_SWEEP_MS: '1000',
    });
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
  const headIndex = async () =>
    Number((await w.q<{ i: string }>(`SELECT entry_index AS i FROM ledger.heads`))[0]!.i);
  const journalRow = (invocationId: string) =>
    w.journalRow(invocationId, ['state', 'end_reason', 'entry_index', 'lapsed']);
  const holderOf = async (invocationId: string) =>
    (
      await w.q<{ h: string }>(
        `SELECT claim_holder AS h FROM ledger.commit_journal WHERE invocation_id = $1`,
        [invocationId],
      )
    )[0]?.h;
  /** The `world up` planner process whose liveness answers as `caller`. */
  const plannerOf = (caller: string) => {
    const line = w.lines.find(
      (l) =>
        l.replica.startsWith('planner-') &&
        l.line.includes('"msg":"answering planner.alive"') &&
        l.line.includes(`"caller":"${caller}"`),
    );
    return w.up.processes.find((p) => p.replica === line?.replica);
  };
  const uncommittedLines = (invocationId: string) =>
    w.lines
      .filter((l) => l.line.includes(UNCOMMITTED_LINE) && l.line.includes(`"${invocationId}"`))
      .map((l) => {
        const r = JSON.parse(l.line) as Record<string, unknown>;
        return [l.replica, r.invocationId, r.episodeId, r.effectRecords];
      });
  const edit = { path: 'count.txt', old_text: 'a', new_text: 'ab' };

  /** Task t1's edit through `surface`. */
  const send = (surface: KeyedSurface, token: string) =>
    surface.send(w, token, 't1', 'ailang-edit', edit);

  it.each(KEYED_CASES)(
    '%s: the caller hears "not confirmed", resends hear it until the claim lapses, then the records for good',
    async (_name, surface, index) => {
      const ep = `ep-death-${index}`;
      const invocationId = invocationIdOf(surface, ep, 't1');
      const answerOf = (message: string): JsonRpcAnswer => ({
        jsonrpc: '2.0',
        id: surface.id,
        error: { code: -32603, message },
      });
      const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
      const before = await headIndex();
      const unlock = await lockLog();
      const first = send(surface, token);
      // The effect ran and its commit waits on the lock: kill the planner holding the claim.
      await eventually(
        async () =>
          (await readFile(join(worktree, 'count.txt'), 'utf8')) === 'ab' ? true : undefined,
        20_000,
        'the edit ran',
      );
      await w.waitForLockWaiter('the commit waiting');
      const holder = await holderOf(invocationId);
      const victim = plannerOf(holder!);
      expect(victim?.service).toBe('planner');
      victim!.child.kill('SIGKILL');
      await victim!.exited;

      expect(await first).toEqual(answerOf(UNCERTAIN));
      const { items } = await w.rpc.request(
        'broker.effect.byInvocation',
        { invocationId },
        { timeoutMs: 5_000 },
      );
      expect(items.map((i) => [i.effect, i.status, i.cost])).toEqual([
        ['Workspace.Write', 'succeeded', 1],
      ]);
      const record = items[0]!.recordRef!;
      // While the claim is live its commit may still land: resend the same task id.
      let resend = await send(surface, token);
      expect(resend).toEqual(answerOf(UNCERTAIN));
      const until = Date.now() + 3 * DEADLINE_MS;
      while (resend.error?.message === UNCERTAIN && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 250));
        resend = await send(surface, token);
      }
      expect(resend).toEqual(answerOf(`${UNRECORDED}; effect records: ${record}`));
      // The late commit runs once the lock frees and is refused: the claim lapsed.
      await unlock();
      await w.waitForNoLockWaiter();
      expect(await send(surface, token)).toEqual(
        answerOf(`${UNRECORDED}; effect records: ${record}`),
      );
      expect(await headIndex()).toBe(before);
      expect(await journalRow(invocationId)).toEqual({
        state: 'claimed',
        end_reason: null,
        entry_index: null,
        lapsed: true,
      });
      expect(
        (
          await w.q(
            `SELECT (SELECT count(*) FROM broker.effect_intents WHERE invocation_id = $1)::int AS intents,
                    (SELECT count(*) FROM broker.effect_records WHERE invocation_id = $1)::int AS records,
                    (SELECT count(*) FROM ledger.log_entries e JOIN ledger.commit_journal j
                       ON j.entry_index = e.entry_index WHERE j.invocation_id = $1)::int AS entries`,
            [invocationId],
          )
        )[0],
      ).toEqual({ intents: 1, records: 1, entries: 0 });
      expect(await w.spent(ep)).toEqual([['Workspace.Write', 1]]);
      expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('ab');
      // The operator line of the sweep, once, however many sweeps ran.
      await eventually(
        () => (uncommittedLines(invocationId).length > 0 ? true : undefined),
        30_000,
        'the sweep line',
      );
      await new Promise((r) => setTimeout(r, 3_000));
      expect(uncommittedLines(invocationId)).toEqual([['broker-1', invocationId, ep, [record]]]);
      await w.up.respawn(victim!.replica).ready;
    },
    120_000,
  );
});
