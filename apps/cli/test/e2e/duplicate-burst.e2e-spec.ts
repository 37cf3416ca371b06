/**
 * Concurrent duplicates (world-spec §4.6) on `world up` with two gateways and two planners: task
 * ids each sent 9 times 5 ms apart across both gateways get the committed result, `task id
 * already used in this session` (no effect intent yet) or `invocation outcome is not confirmed;
 * resend the same task id` (the intent exists, the commit is pending; world-internals §5.5) —
 * never an internal error (the planner's `Unexpected end of JSON input` when a duplicate read the
 * journal committed but not its output) — and each commits once.
 * The deterministic reproduction of the race is apps/ledger/test/integration/begin-race.int-spec.ts.
 */
import { CALL_DEADLINE_MS } from '@world/contracts';
import { startUpWorld, type JsonRpcAnswer, type UpWorld } from '../support/up-world.js';

const IN_FLIGHT = { code: -32602, message: 'task id already used in this session' };
const UNCERTAIN = {
  code: -32603,
  message: 'invocation outcome is not confirmed; resend the same task id',
};
/**
 * Task ids of the burst: 10 × 9 concurrent sends, because a 2-core machine shared by several test
 * runs answered 40 × 9 at once only past the ledger's bookkeeping timeout.
 */
const IDS = 10;

describe('duplicate bursts on world up (gateway=2, planner=2, broker=1, ledger=1)', () => {
  let w: UpWorld;

  beforeAll(async () => {
    w = await startUpWorld('burst', 'gateway=2,planner=2,broker=1,ledger=1', CALL_DEADLINE_MS);
  }, 120_000);

  afterAll(async () => {
    await w?.close();
  }, 60_000);

  const headIndex = async () =>
    Number((await w.q<{ i: string }>(`SELECT entry_index AS i FROM ledger.heads`))[0]!.i);

  it('answers 10 task ids sent 9 times 5 ms apart across both gateways with results, "task id already used" or "not confirmed"', async () => {
    // One episode per task id: calls of one episode queue on its lease, these race on the claim.
    const tokens: string[] = [];
    for (let t = 0; t < IDS; t++) {
      const { token } = await w.episode(`ep-burst-${t}`, { 'hello.ail': 'module hello\n' }, [
        { effect: 'Workspace.Read', scope: 'worktree', budget: 10 },
      ]);
      tokens.push(token);
    }
    const before = await headIndex();
    const sends: Array<Promise<[string, JsonRpcAnswer]>> = [];
    for (let t = 0; t < IDS; t++) {
      for (let k = 0; k < 9; k++) {
        const id = `b${t}`;
        sends.push(
          new Promise((r) => setTimeout(r, k * 5)).then(async () => [
            id,
            await w.tasksSend(tokens[t]!, id, 'ailang-read', { path: 'hello.ail' }, (t + k) % 2),
          ]),
        );
      }
    }
    const answers = await Promise.all(sends);
    const isResendAnswer = (e: JsonRpcAnswer['error']) =>
      JSON.stringify(e) === JSON.stringify(IN_FLIGHT) ||
      JSON.stringify(e) === JSON.stringify(UNCERTAIN);
    const internal = answers.filter(([, a]) => a.error !== undefined && !isResendAnswer(a.error));
    expect(internal).toEqual([]);
    for (const [, a] of answers)
      if (a.error === undefined) expect(a.result?.status).toEqual({ state: 'completed' });
    // One entry per task id; every completed answer of an id names that entry.
    const byId = new Map<string, Set<number>>();
    for (const [id, a] of answers) {
      if (a.result === undefined) continue;
      const set = byId.get(id) ?? new Set<number>();
      set.add(a.result.metadata.entry_index as number);
      byId.set(id, set);
    }
    expect([...byId.values()].map((s) => s.size)).toEqual(Array(IDS).fill(1));
    expect(await headIndex()).toBe(before + IDS);
    expect(
      Number(
        (
          await w.q<{ n: string }>(
            `SELECT count(*) AS n FROM broker.effect_intents WHERE episode_id LIKE 'ep-burst-%'`,
          )
        )[0]!.n,
      ),
    ).toBe(IDS);
  }, 90_000);
});
