/**
 * Group commit of `ledger.commit`: the tool commits that arrive while an append transaction is
 * in flight wait, and the next transaction appends them all — one head lock, one head update and
 * one WAL flush for the group instead of one each (bench/README.md "What the misses are made
 * of": at 32 clients every append queued on the head row through its own WAL flush).
 *
 * Each member still gets its own entry index, previous hash, world ref and journal row, chained
 * in arrival order exactly as if it had committed alone right after the one before it, and its
 * own answer: a resend answers its first result (replayed:true), an id bound to different
 * content a DuplicateInvocationError, an unresolvable ref a BadRequestError — found under the
 * lock, before anything is written, and affecting no other member. A commit that arrives alone
 * commits alone (commitAlone: one statement on the head last seen, else its own transaction), so
 * an idle ledger pays one round trip per commit. When the group's transaction fails, nothing of
 * it was written, and its members are committed one by one, each in its own transaction
 * (commitPrepared), so each gets its own exact outcome.
 */
import { BadRequestError, DuplicateInvocationError, type ReplyOf } from '@world/contracts';
import { crashpoint, serviceLogger } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { chainToolCommit, freshCommitReply, headAfter, type HeadPosition } from './chain.js';
import {
  afterCommit,
  commitAlone,
  commitPrepared,
  requireResolvable,
  type CommitDeps,
  type PreparedCommit,
} from './commit-invocation.js';
import type { AppendWrite, CommitTx } from './commit.repository.js';

const log = serviceLogger(LEDGER_SERVICE);

/** The most commits one group transaction appends; the rest wait for the next. */
export const GROUP_COMMIT_MAX = 64;

type CommitReply = ReplyOf<'ledger.commit'>;

/** A commit waiting for its group, and how to answer it. */
interface Member {
  prepared: PreparedCommit;
  resolve(reply: CommitReply): void;
  reject(error: unknown): void;
}

/** One member's outcome in a group transaction. */
type Outcome = { reply: CommitReply } | { error: Error };

/** Raised inside a group transaction to roll it back when a write of it was refused. */
class GroupRefused extends Error {}

/** Batches one replica's concurrent tool commits into shared transactions (see the file doc). */
export class CommitGroup {
  private readonly waiting: Member[] = [];
  private draining = false;
  /**
   * The commits of this replica not yet answered, by invocation id: a resend of one (the
   * planner retries a commit that did not answer in time, issue 14 fault 1) shares its answer
   * instead of queuing a second transaction behind the same lock — retries while a commit is
   * slow never pile up on the database's connections.
   */
  private readonly pending = new Map<string, { commitHash: string; reply: Promise<CommitReply> }>();

  constructor(
    private readonly deps: CommitDeps,
    private readonly max = GROUP_COMMIT_MAX,
  ) {}

  /**
   * Commits a prepared tool call: at once when no append of this group is in flight, else with
   * the commits that arrived meanwhile, in one transaction.
   * @returns the commit's reply, exactly as commitPrepared would give it for this commit alone
   * @throws what commitPrepared would throw for this commit alone (BadRequestError for an
   *   unresolvable transitionRef/stateRoot, DuplicateInvocationError for an id bound to
   *   different content)
   */
  submit(prepared: PreparedCommit): Promise<CommitReply> {
    const { invocationId, commitHash } = prepared;
    const same = this.pending.get(invocationId);
    if (same !== undefined && same.commitHash === commitHash) return same.reply;
    const reply = new Promise<CommitReply>((resolve, reject) => {
      this.waiting.push({ prepared, resolve, reject });
      if (!this.draining) void this.drain();
    });
    if (same === undefined) {
      this.pending.set(invocationId, { commitHash, reply });
      const forget = () => {
        if (this.pending.get(invocationId)?.reply === reply) this.pending.delete(invocationId);
      };
      reply.then(forget, forget);
    }
    return reply;
  }

  /** Runs groups until nobody waits; one group at a time. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.take();
        // run answers every member itself; this only guards against a bug leaving one waiting.
        await this.run(group).catch((err: unknown) => group.forEach((m) => m.reject(err)));
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * The next group: waiting commits in arrival order, at most `max`, one per invocation id (a
   * resend waits for the next group, where it finds its first commit journaled).
   */
  private take(): Member[] {
    const group: Member[] = [];
    const ids = new Set<string>();
    const rest: Member[] = [];
    for (const member of this.waiting) {
      const id = member.prepared.invocationId;
      if (group.length < this.max && !ids.has(id)) {
        ids.add(id);
        group.push(member);
      } else {
        rest.push(member);
      }
    }
    this.waiting.splice(0, this.waiting.length, ...rest);
    return group;
  }

  /** Commits one group and answers its members; never throws. */
  private async run(group: Member[]): Promise<void> {
    if (group.length === 1) return answer(group[0]!, commitAlone(this.deps, group[0]!.prepared));
    let outcomes: Outcome[];
    try {
      outcomes = await this.deps.repository.transaction((t) =>
        appendGroup(
          t,
          group.map((m) => m.prepared),
        ),
      );
    } catch (err) {
      log.warn({ err, size: group.length }, 'group commit failed; committing one by one');
      for (const member of group) await answer(member, commitPrepared(this.deps, member.prepared));
      return;
    }
    group.forEach((member, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) return member.reject(outcome.error);
      if (!outcome.reply.replayed) {
        afterCommit(this.deps, {
          entryIndex: outcome.reply.entryIndex,
          entryHash: outcome.reply.entryHash,
          worldRef: outcome.reply.worldRef,
          writtenBy: member.prepared.request.writtenBy,
          invocationId: member.prepared.invocationId,
        });
      }
      member.resolve(outcome.reply);
    });
  }
}

/** Answers a member with the outcome of its own commit. */
async function answer(member: Member, outcome: Promise<CommitReply>): Promise<void> {
  await outcome.then(member.resolve, member.reject);
}

/**
 * The group transaction: locks the head once, reads the members' journal rows, then chains the
 * members in order on the head — a resend or a refusal found here is that member's outcome and
 * writes nothing — and appends the chained ones, the last of them moving the head.
 * @returns one outcome per member, in order
 * @throws GroupRefused when a journal row could not be bound (the transaction rolls back), and
 *   whatever a statement throws
 */
async function appendGroup(t: CommitTx, members: PreparedCommit[]): Promise<Outcome[]> {
  let head: HeadPosition = (await t.lockHead(null)).head;
  const journals = await t.journals(members.map((m) => m.invocationId));
  /** objects carried by the members chained so far: written before any later member's */
  const carriedBefore = new Set<string>();
  const outcomes: Outcome[] = [];
  const writes: AppendWrite[] = [];
  for (const { invocationId, request, carried, commitHash } of members) {
    const journal = journals.get(invocationId);
    if (journal?.state === 'committed') {
      outcomes.push(
        journal.commitHash !== commitHash || journal.outcome === null
          ? { error: new DuplicateInvocationError(invocationId) }
          : { reply: { ...journal.outcome, replayed: true } },
      );
      continue;
    }
    const resolvable = new Set(carriedBefore);
    for (const o of carried) resolvable.add(o.hash);
    try {
      await requireResolvable(t, resolvable, [
        ['transitionRef', request.transitionRef],
        ['stateRoot', request.stateRoot],
      ]);
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      outcomes.push({ error });
      continue;
    }
    const chained = chainToolCommit(head, request);
    writes.push({
      objects: carried,
      ...chained,
      journal: { mode: 'tool', invocationId, commitHash, claimToken: request.claimToken ?? null },
    });
    for (const o of carried) carriedBefore.add(o.hash);
    head = headAfter(chained);
    outcomes.push({ reply: freshCommitReply(chained) });
  }
  for (const [i, write] of writes.entries()) {
    if (!(await t.append(write, i === writes.length - 1)))
      throw new GroupRefused('a journal row of the group could not be bound');
  }
  if (writes.length > 0) crashpoint('inside-commit');
  return outcomes;
}
