/**
 * The ways a batch of tool commits is written, and the one function that picks one
 * (chooseStrategy). Every strategy decides each commit with decideToolCommit and writes it with
 * the statements of append.statements.ts, so each answers exactly what committing the batch's
 * commits one after the other, each in its own transaction, would: the same entries, worlds,
 * journal rows and replies. They differ only in how many round trips that takes:
 *
 * - OWN_TRANSACTION — one commit, one transaction: BEGIN, lockHead, (stored refs,) append,
 *   the tree's extension, COMMIT. Always possible; the others fall back to it.
 * - ONE_STATEMENT — a lone commit as one autocommit statement on the head this replica last
 *   saw (APPEND_ON_HEAD): one round trip, one WAL flush. Every PostgreSQL message costs a process
 *   wake-up that dominates this machine's CPU, so a commit that arrives alone tries this first;
 *   whenever it cannot be sure — the head moved, the journal row must be looked at — it writes
 *   nothing and the commit takes its own transaction.
 * - SHARED_TRANSACTION — the commits that arrived while an append was in flight, in one
 *   transaction: one head lock, one head update and one WAL flush for the group instead of one
 *   each (bench/README.md "What the misses are made of": at 32 clients every append queued on
 *   the head row through its own WAL flush). When it fails nothing of it was written, and each
 *   member takes its own transaction, so each gets its own exact outcome.
 */
import { InvalidRefError } from '@world/canonical';
import { ClaimGivenUpError, type ReplyOf } from '@world/contracts';
import { crashpoint, crashpointArmed, serviceLogger } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import {
  headAfter,
  refsToLookUp,
  toolRefs,
  type HeadPosition,
  type ToolAppendWrite,
} from './chain.js';
import type { CommitRepository, CommitTx } from './commit.repository.js';
import type { LastHead } from './last-head.js';
import {
  decideToolCommit,
  type PreparedCommit,
  type ToolCommitFacts,
  type ToolDecision,
} from './tool-commit.js';

const log = serviceLogger(LEDGER_SERVICE);

/** One commit's outcome: its reply and what was written now (null for a replay), or its error. */
export type Outcome =
  { reply: ReplyOf<'ledger.commit'>; written: ToolAppendWrite | null } | { error: unknown };

/** A way to write a batch of prepared tool commits. */
export interface CommitStrategy {
  readonly name: 'own-transaction' | 'one-statement' | 'shared-transaction';
  /**
   * Commits the batch, in order.
   * @returns one outcome per commit, in order; null when nothing was written and each commit
   *   must take its own transaction (OWN_TRANSACTION never returns null)
   */
  commit(repository: CommitRepository, batch: readonly PreparedCommit[]): Promise<Outcome[] | null>;
}

/**
 * Decides a commit under the head lock, looking up which of its refs are stored when the
 * decision asks (one statement, only then).
 */
async function decideUnderLock(
  t: CommitTx,
  prepared: PreparedCommit,
  facts: ToolCommitFacts,
): Promise<Exclude<ToolDecision, { kind: 'lookup' }>> {
  const first = decideToolCommit(prepared, facts);
  if (first.kind !== 'lookup') return first;
  const decided = decideToolCommit(prepared, {
    ...facts,
    stored: await t.storedObjects(first.refs),
  });
  if (decided.kind === 'lookup') throw new Error('a tool commit asked twice which refs are stored');
  return decided;
}

/** One commit transaction of OWN_TRANSACTION; a refusal is thrown, so it rolls back. */
function ownTransaction(repository: CommitRepository, prepared: PreparedCommit): Promise<Outcome> {
  return repository.transaction(async (t) => {
    const { head, journal } = await t.lockHead(prepared.invocationId);
    const decision = await decideUnderLock(t, prepared, { head, journal });
    if (decision.kind === 'replay') return { reply: decision.reply, written: null };
    if (decision.kind === 'refuse') throw decision.error;
    if (!(await t.append(decision.write))) throw new ClaimGivenUpError(prepared.invocationId);
    crashpoint('inside-commit');
    return { reply: decision.reply, written: decision.write };
  });
}

/**
 * A commit in its own transaction, tried once more when its journal row could not be bound
 * (ClaimGivenUpError): the head lock's read joins the journal row as it was when the read
 * began, so a resend that waited there for its own first commit saw the claim, not the outcome;
 * a second transaction reads the row afresh — a replay, or the same refusal (the claim ended,
 * lapsed or was reclaimed: nothing is written).
 */
async function ownOutcome(
  repository: CommitRepository,
  prepared: PreparedCommit,
): Promise<Outcome> {
  try {
    return await ownTransaction(repository, prepared);
  } catch (error) {
    if (!(error instanceof ClaimGivenUpError)) return { error };
  }
  try {
    return await ownTransaction(repository, prepared);
  } catch (error) {
    return { error };
  }
}

/** Each commit in its own transaction, one after the other (ownOutcome). */
export const OWN_TRANSACTION: CommitStrategy = {
  name: 'own-transaction',
  async commit(repository, batch) {
    const outcomes: Outcome[] = [];
    for (const prepared of batch) outcomes.push(await ownOutcome(repository, prepared));
    return outcomes;
  },
};

/**
 * A lone commit in one statement on the head `repository` last saw (CommitRepository.
 * appendOnHead): written only when that is still the head with the tree this replica saw there,
 * and the journal row, if any, is this commit's own live claim. It declines (null, nothing
 * written) before any head was seen, when a named ref is not carried (whether it is stored is
 * the transaction's question), when a ref is malformed (the transaction refuses it in its own
 * order), and when the statement wrote nothing (the miss is counted: LastHead.missed).
 * @internal exported for commit-strategies.spec.ts, fast-commit.int-spec.ts, group-commit.int-spec.ts
 */
export const ONE_STATEMENT: CommitStrategy = {
  name: 'one-statement',
  async commit(repository, batch) {
    const [prepared] = batch;
    const head = repository.lastHead.get();
    if (batch.length !== 1 || prepared === undefined || head === null) return null;
    const decision = decideToolCommit(prepared, { head, journal: null });
    if (decision.kind !== 'append') return null;
    let landed: boolean;
    try {
      landed = await repository.appendOnHead(head, decision.write);
    } catch (err) {
      if (err instanceof InvalidRefError) return null;
      return [{ error: err }];
    }
    if (!landed) {
      repository.lastHead.missed();
      return null;
    }
    repository.lastHead.landed();
    return [{ reply: decision.reply, written: decision.write }];
  },
};

/** Raised inside a shared transaction to roll it back when a write of it was refused. */
class GroupRefused extends Error {}

/**
 * The batch in one transaction: the head is locked once and the members' journal rows read, then
 * each member is decided in order on the head the one before it left — a replay or a refusal
 * found here is that member's outcome and writes nothing, and the objects of earlier members
 * count as carried — and the chained ones are appended, the last of them moving the head. When a
 * journal row cannot be bound or a statement fails, the transaction rolls back and the strategy
 * declines.
 * @internal exported for commit-strategies.spec.ts, fast-commit.int-spec.ts
 */
export const SHARED_TRANSACTION: CommitStrategy = {
  name: 'shared-transaction',
  async commit(repository, batch) {
    try {
      return await repository.transaction(async (t) => {
        let head: HeadPosition = (await t.lockHead(null)).head;
        const journals = await t.journals(batch.map((m) => m.invocationId));
        const carriedBefore = new Set<string>();
        const outcomes: Outcome[] = [];
        const writes: ToolAppendWrite[] = [];
        for (const prepared of batch) {
          const journal = journals.get(prepared.invocationId) ?? null;
          const decision = await decideUnderLock(t, prepared, { head, journal, carriedBefore });
          if (decision.kind === 'refuse') outcomes.push({ error: decision.error });
          else if (decision.kind === 'replay')
            outcomes.push({ reply: decision.reply, written: null });
          else {
            writes.push(decision.write);
            for (const o of prepared.carried) carriedBefore.add(o.hash);
            head = headAfter(decision.write);
            outcomes.push({ reply: decision.reply, written: decision.write });
          }
        }
        for (const [i, write] of writes.entries()) {
          if (!(await t.append(write, i === writes.length - 1)))
            throw new GroupRefused('a journal row of the group could not be bound');
        }
        if (writes.length > 0) crashpoint('inside-commit');
        return outcomes;
      });
    } catch (err) {
      log.warn({ err, size: batch.length }, 'group commit failed; committing one by one');
      return null;
    }
  },
};

/**
 * The one chooser of how a batch is committed: several commits share a transaction; a lone one
 * takes one statement when that can land (a head seen, not backing off after misses, both named
 * refs carried), else its own transaction. While the `inside-commit` crash (or pause) point is
 * armed a lone commit takes the transaction, where the point fires only for a commit that writes (after the
 * journal check) — one statement cannot be stopped in the middle. Strategies that decline fall
 * back to OWN_TRANSACTION (CommitInvocation.commitBatch).
 * @param lastHead this replica's last head; asking it whether to try counts down its backoff
 */
export function chooseStrategy(
  lastHead: LastHead,
  batch: readonly PreparedCommit[],
): CommitStrategy {
  const [lone] = batch;
  if (batch.length > 1) return SHARED_TRANSACTION;
  if (lone === undefined || crashpointArmed('inside-commit')) return OWN_TRANSACTION;
  if (lastHead.get() === null || !lastHead.worthTrying()) return OWN_TRANSACTION;
  const carried = new Set(lone.carried.map((o) => o.hash));
  if (refsToLookUp(toolRefs(lone.request), carried).length > 0) return OWN_TRANSACTION;
  return ONE_STATEMENT;
}
