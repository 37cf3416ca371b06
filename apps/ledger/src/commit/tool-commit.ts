/**
 * The one decision of what a coordinator tool commit (`ledger.commit`) appends, written once for
 * every way it is committed (commit-strategies.ts): answer a resend from the journal, refuse,
 * ask which refs are stored, or append this entry and world on this head (DESIGN.md §2,
 * §7.1–7.2; world-spec §2.11–2.15; world-internals §5.3). Pure: the strategies read what it
 * needs and write what it decides.
 */
import type { Ref, WorldObject } from '@world/canonical';
import { BadRequestError, DuplicateInvocationError, type ReplyOf } from '@world/contracts';
import {
  chainToolCommit,
  checkCoordinatorInvocationId,
  commitHashOf,
  freshCommitReply,
  refsToLookUp,
  toolRefs,
  unresolvable,
  verifyWireObjects,
  type HeadPosition,
  type ToolAppendWrite,
  type ToolCommitRequest,
} from './chain.js';
import type { JournalBinding } from './commit.statements.js';

type CommitReply = ReplyOf<'ledger.commit'>;

/** A `ledger.commit` request that passed every check that needs no database. */
export interface PreparedCommit {
  invocationId: string;
  request: ToolCommitRequest;
  /** the carried objects, verified (hash = sha256 of payload) */
  carried: WorldObject[];
  /** the request's fingerprint (commitHashOf) */
  commitHash: string;
}

/**
 * Checks a `ledger.commit` request before it meets the database: invocation id form, every
 * carried object's hash, and the request's fingerprint.
 * @throws BadRequestError for a malformed invocation id or an object whose payload does not hash
 *   to its hash (naming objects[i])
 */
export function prepareCommit(request: ToolCommitRequest): PreparedCommit {
  const invocationId = checkCoordinatorInvocationId(request.invocationId);
  const carried = verifyWireObjects(request.objects);
  return { invocationId, request, carried, commitHash: commitHashOf(request) };
}

/** What the decision knows of the database. */
export interface ToolCommitFacts {
  /** the head the commit would chain on */
  head: HeadPosition;
  /**
   * the invocation's journal row as read under the head lock; null without one — or when the
   * one-statement append decides, whose statement checks the row itself (toolBindable)
   */
  journal: JournalBinding | null;
  /** objects carried by earlier commits of the same transaction (written before this one's) */
  carriedBefore?: ReadonlySet<string>;
  /** which of the refs a `lookup` asked for are stored (ref → semantic id); absent before */
  stored?: ReadonlyMap<string, string>;
}

/** What a tool commit does. */
export type ToolDecision =
  /** a resend of a committed invocation: its first result, replayed:true; nothing is written */
  | { kind: 'replay'; reply: CommitReply }
  /** nothing is written: the id committed other content, or a named ref does not resolve */
  | { kind: 'refuse'; error: DuplicateInvocationError | BadRequestError }
  /** decide again once it is known which of these refs are stored */
  | { kind: 'lookup'; refs: Ref[] }
  /** write this (the journal row bound by the statement) and answer this */
  | { kind: 'append'; write: ToolAppendWrite; reply: CommitReply };

/**
 * Decides a tool commit, in this order: a committed journal row answers it (same fingerprint:
 * its first result, replayed:true; another: DuplicateInvocationError); then its transitionRef and
 * stateRoot must be carried (by it or an earlier commit of the transaction) or stored (a
 * `lookup` first when some are not carried; BadRequestError when one is neither); then it is
 * chained on the head: entryIndex = head + 1, prevEntryHash = head entry hash, the world derived
 * (chainToolCommit), journaled under its claim token.
 */
export function decideToolCommit(prepared: PreparedCommit, facts: ToolCommitFacts): ToolDecision {
  const { invocationId, request, carried, commitHash } = prepared;
  const { journal } = facts;
  if (journal?.state === 'committed') {
    return journal.commitHash !== commitHash || journal.outcome === null
      ? { kind: 'refuse', error: new DuplicateInvocationError(invocationId) }
      : { kind: 'replay', reply: { ...journal.outcome, replayed: true } };
  }
  const resolvable = new Set(facts.carriedBefore);
  for (const o of carried) resolvable.add(o.hash);
  const refs = toolRefs(request);
  if (facts.stored === undefined) {
    const missing = refsToLookUp(refs, resolvable);
    if (missing.length > 0) return { kind: 'lookup', refs: missing };
  }
  const refused = unresolvable(refs, resolvable, facts.stored ?? new Map());
  if (refused !== null) return { kind: 'refuse', error: refused };
  const chained = chainToolCommit(facts.head, request);
  return {
    kind: 'append',
    write: {
      objects: carried,
      ...chained,
      journal: { mode: 'tool', invocationId, commitHash, claimToken: request.claimToken ?? null },
    },
    reply: freshCommitReply(chained),
  };
}
