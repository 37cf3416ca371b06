/**
 * A keyed call whose planner dies (or stalls) before it claims the call (DESIGN.md §2; world-spec
 * §4.5, §6.5; world-internals §5.5), on `world up` with one planner, so every call reaches it,
 * every service a real process on the test PostgreSQL and NATS:
 * - the planner is SIGSTOPped, so the call reaches it unread, then SIGKILLed: the caller hears
 *   `invocation outcome is not confirmed; resend the same task id` (no receipt came), not the
 *   deadline's `host callback timed out`; the resend runs the edit once;
 * - the planner is SIGSTOPped and resumed after that answer: it reads the call late and, its
 *   receipt refused, never claims or runs it; the resend runs it once;
 * - the planner took the call (its receipt) and is SIGKILLed while its claim waits on a lock: the
 *   caller hears "not confirmed" once the taker is gone; the dead planner's claim lands after
 *   all, and a resend reaching the new planner while that claim is still live — its claim
 *   waits until the old one lapsed — is answered by its own planner (the committed result),
 *   never for the earlier attempt's dead holder; the edit ran once.
 * MCP with `_meta["world/taskId"]` and A2A `tasks/send` each get their episodes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@world/testing';
import { invocationIdOf, KEYED_CASES, type KeyedSurface } from '../support/keyed-surfaces.js';
import { startUpWorld, type JsonRpcAnswer, type UpWorld } from '../support/up-world.js';

const DEADLINE_MS = 8_000;
const UNCERTAIN = 'invocation outcome is not confirmed; resend the same task id';
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];
const edit = { path: 'count.txt', old_text: 'a', new_text: 'ab' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a keyed call whose planner dies or stalls before its claim (world up, planner=1)', () => {
  let w: UpWorld;

  beforeAll(async () => {
    w = await startUpWorld('punclaimed', 'gateway=1,planner=1,broker=1,ledger=1', DEADLINE_MS);
  }, 120_000);

  afterEach(async () => {
    await w.releaseLocks();
    const p = planner();
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGCONT');
    else await w.up.respawn(p.replica).ready;
  }, 60_000);

  afterAll(async () => {
    await w?.close();
  }, 60_000);

  const planner = () => w.up.processes.find((p) => p.service === 'planner')!;
  const killPlanner = async () => {
    const p = planner();
    p.child.kill('SIGKILL');
    await p.exited;
    return p.replica;
  };
  const journalRow = (invocationId: string) =>
    w.journalRow(invocationId, ['state', 'end_reason', 'claim_holder', 'entry_index', 'ms_left']);
  const rows = async (invocationId: string) =>
    (
      await w.q(
        `SELECT (SELECT count(*) FROM broker.effect_intents WHERE invocation_id = $1)::int AS intents,
                (SELECT count(*) FROM ledger.log_entries e JOIN ledger.commit_journal j
                   ON j.entry_index = e.entry_index WHERE j.invocation_id = $1)::int AS entries`,
        [invocationId],
      )
    )[0];
  /** The planner's `caller` id, as its start-up line names it. */
  const callerOf = (nth: number) => {
    const lines = w.lines.filter(
      (l) => l.replica.startsWith('planner-') && l.line.includes('"msg":"answering planner.alive"'),
    );
    return (JSON.parse(lines[nth]!.line) as { caller: string }).caller;
  };
  const plannerStarts = () =>
    w.lines.filter(
      (l) => l.replica.startsWith('planner-') && l.line.includes('"msg":"answering planner.alive"'),
    ).length;

  /** Task `task`'s edit through `surface`. */
  const send = (surface: KeyedSurface, token: string, task: string) =>
    surface.send(w, token, task, 'ailang-edit', edit);
  const uncertainOf = (id: number): JsonRpcAnswer => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: UNCERTAIN },
  });

  /** The resend runs the edit once: its entry, the file, the rows and the spend say so. */
  async function expectRanOnce(
    surface: KeyedSurface,
    token: string,
    task: string,
    ep: string,
    worktree: string,
    answer?: JsonRpcAnswer,
  ) {
    const invocationId = invocationIdOf(surface, ep, task);
    const resend = answer ?? (await send(surface, token, task));
    expect(resend.error).toBeUndefined();
    const entry = surface.entryOf(resend);
    expect(typeof entry).toBe('number');
    expect(surface.entryOf(await send(surface, token, task))).toBe(entry);
    expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('ab');
    expect(await rows(invocationId)).toEqual({ intents: 1, entries: 1 });
    expect((await journalRow(invocationId))?.state).toBe('committed');
    expect(await w.spent(ep)).toEqual([['Workspace.Write', 1]]);
  }

  it.each(KEYED_CASES)(
    '%s: a planner SIGKILLed with the call unread: "not confirmed", and the resend runs it once',
    async (_name, surface, index) => {
      const ep = `ep-unread-${index}`;
      const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
      planner().child.kill('SIGSTOP');
      expect(await send(surface, token, 't1')).toEqual(uncertainOf(surface.id));
      await w.up.respawn(await killPlanner()).ready;
      expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('a');
      expect(await journalRow(invocationIdOf(surface, ep, 't1'))).toBeNull();
      await expectRanOnce(surface, token, 't1', ep, worktree);
    },
    120_000,
  );

  it.each(KEYED_CASES)(
    '%s: a planner resumed after its caller heard "not confirmed" never claims the call',
    async (_name, surface, index) => {
      const ep = `ep-late-${index}`;
      const invocationId = invocationIdOf(surface, ep, 't1');
      const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
      planner().child.kill('SIGSTOP');
      expect(await send(surface, token, 't1')).toEqual(uncertainOf(surface.id));
      planner().child.kill('SIGCONT');
      // The late planner read the call and gave it up: its one line for it.
      await w.waitForLine(
        (l) =>
          l.replica.startsWith('planner-') &&
          l.line.includes('"msg":"call failed"') &&
          l.line.includes(`"invocationId":"${invocationId}"`),
        10_000,
        'the late planner gave the call up',
      );
      const late = w.lines.filter(
        (l) => l.line.includes(`"invocationId":"${invocationId}"`) && l.line.includes('"call '),
      );
      expect(late.map((l) => (JSON.parse(l.line) as { errorClass?: string }).errorClass)).toEqual([
        'Uncertain',
      ]);
      expect(await journalRow(invocationId)).toBeNull();
      expect(await rows(invocationId)).toEqual({ intents: 0, entries: 0 });
      expect(await readFile(join(worktree, 'count.txt'), 'utf8')).toBe('a');
      await expectRanOnce(surface, token, 't1', ep, worktree);
    },
    120_000,
  );

  it.each(KEYED_CASES)(
    '%s: the taker SIGKILLed before its claim: "not confirmed"; a resend is answered by its own planner, not for the dead claim',
    async (_name, surface, index) => {
      const ep = `ep-taken-${index}`;
      const invocationId = invocationIdOf(surface, ep, 't1');
      const { worktree, token } = await w.episode(ep, { 'count.txt': 'a' }, WRITE);
      const starts = plannerStarts();
      const deadCaller = callerOf(starts - 1);
      // The planner took the call; its claim waits on the journal's lock when it is killed.
      const unlockJournal = await w.holdLock('LOCK TABLE ledger.commit_journal IN EXCLUSIVE MODE');
      const first = send(surface, token, 't1');
      await w.waitForLockWaiter('a waiter');
      const replica = await killPlanner();
      await w.up.respawn(replica).ready;
      // Its claim lands after all, held by the dead planner, nothing run under it.
      await unlockJournal();
      const claim = await eventually(
        async () => (await journalRow(invocationId)) ?? undefined,
        10_000,
        'the late claim',
      );
      expect([claim.state, claim.claim_holder]).toEqual(['claimed', deadCaller]);
      const lapsesAt = Date.now() + Number(claim.ms_left);
      // A resend 2.3 s before that claim lapses, to the new planner, stopped until 1.3 s later:
      // it takes the call within the receipt's bound and its claim waits for the journal row
      // until the dead claim lapsed, then claims it again and runs.
      await sleep(lapsesAt - 3_500 - Date.now());
      planner().child.kill('SIGSTOP');
      // The journal's table lock holds the claim's statement before it reads the row, so the
      // row is read (and found lapsed) once the lock frees; reads of the journal go on.
      const unlockAgain = await w.holdLock('LOCK TABLE ledger.commit_journal IN EXCLUSIVE MODE');
      await sleep(lapsesAt - 2_300 - Date.now());
      const resend = send(surface, token, 't1');
      await sleep(1_300);
      planner().child.kill('SIGCONT');
      await w.waitForLockWaiter('a waiter');
      await eventually(
        async () => (Number((await journalRow(invocationId))!.ms_left) < -150 ? true : undefined),
        10_000,
        'the dead claim lapsed',
      );
      await unlockAgain();
      const answer = await resend;
      expect(answer.error).toBeUndefined();
      expect((await journalRow(invocationId))?.claim_holder).toBe(callerOf(starts));
      await expectRanOnce(surface, token, 't1', ep, worktree, answer);
      expect(await first).toEqual(uncertainOf(surface.id));
    },
    120_000,
  );
});
