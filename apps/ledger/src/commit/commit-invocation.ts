/**
 * `ledger.commit`: commits one coordinator tool call as the next log entry (DESIGN.md §2,
 * §7.1–7.2; world-spec §2.11–2.15).
 */
import type { Ref, WorldObject } from '@world/canonical';
import {
  BadRequestError,
  ClaimGivenUpError,
  DuplicateInvocationError,
  type ReplyOf,
  type RequestOf,
} from '@world/contracts';
import { crashpoint, serviceLogger, worldMetrics, type RpcClient } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import {
  chainToolCommit,
  checkCoordinatorInvocationId,
  commitHashOf,
  freshCommitReply,
  verifyWireObjects,
  type ToolCommitRequest,
} from './chain.js';
import { commitFast } from './commit-fast.js';
import type { CommitGroup } from './commit-group.js';
import type { CommitRepository, CommitTx } from './commit.repository.js';

const log = serviceLogger(LEDGER_SERVICE);

/** What commitInvocation needs: the commit transaction and a client to announce the entry. */
export interface CommitDeps {
  repository: CommitRepository;
  events: Pick<RpcClient, 'emit'>;
  /** this replica's name: `world_ledger_head_index{replica}` follows its commits when given */
  replica?: string;
  /** told of every commit: it signs a checkpoint of the new head (tlog/checkpoint-signer.ts) */
  checkpoints?: { committed(): void };
}

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

/**
 * Appends a tool call's entry in one transaction: binds the invocation's journal row (a re-sent
 * commit answers its first result with replayed:true and writes nothing; a claim from
 * `ledger.invocation.begin` is bound whatever its state), locks the head, assigns entryIndex =
 * head + 1 and prevEntryHash = head entry hash, writes objects, entry, world, membership, head
 * and journal outcome; then emits `ledger.committed`. A commit that arrives alone is first tried
 * as one statement on the head this replica last saw (commitAlone). With a group, concurrent
 * commits share one transaction (see CommitGroup); each still answers exactly as it would alone.
 * @param request a parsed `ledger.commit` request
 * @param group this replica's group commit, if it batches its commits
 * @returns the entry's index and hash, the previous hash, the new world ref and revision
 * @throws BadRequestError for a malformed invocation id, an object whose payload does not hash to
 *   its hash (naming objects[i]), or a transitionRef/stateRoot neither carried nor stored
 * @throws DuplicateInvocationError when the id already committed different content
 * @throws ClaimGivenUpError when the id's claim is not this commit's live claim (ended, lapsed or
 *   reclaimed): nothing is written
 */
export async function commitInvocation(
  deps: CommitDeps,
  request: ToolCommitRequest,
  group?: CommitGroup,
): Promise<ReplyOf<'ledger.commit'>> {
  const prepared = prepareCommit(request);
  return group === undefined ? commitAlone(deps, prepared) : group.submit(prepared);
}

/**
 * Commits one prepared tool call alone: in one statement when the fast path can (commitFast),
 * else in its own transaction (commitPrepared). Either way it answers, announces and refuses
 * exactly as commitPrepared does.
 * @returns the entry's index and hash, the previous hash, the new world ref and revision (the
 *   first result with replayed:true for a resend)
 * @throws BadRequestError for a transitionRef/stateRoot neither carried nor stored
 * @throws DuplicateInvocationError when the id already committed different content
 */
export async function commitAlone(
  deps: CommitDeps,
  prepared: PreparedCommit,
): Promise<ReplyOf<'ledger.commit'>> {
  const reply = await commitFast(deps.repository, prepared);
  if (reply === null) return commitPrepared(deps, prepared);
  afterCommit(deps, {
    entryIndex: reply.entryIndex,
    entryHash: reply.entryHash,
    worldRef: reply.worldRef,
    writtenBy: prepared.request.writtenBy,
    invocationId: prepared.invocationId,
  });
  return reply;
}

/**
 * Commits one prepared tool call in its own transaction (commitAlone's fallback, and a failed
 * group's one-by-one retry).
 * @returns the entry's index and hash, the previous hash, the new world ref and revision (the
 *   first result with replayed:true for a resend)
 * @throws BadRequestError for a transitionRef/stateRoot neither carried nor stored
 * @throws DuplicateInvocationError when the id already committed different content
 */
export async function commitPrepared(
  deps: CommitDeps,
  prepared: PreparedCommit,
): Promise<ReplyOf<'ledger.commit'>> {
  try {
    return await commitOnce(deps, prepared);
  } catch (err) {
    if (!(err instanceof ClaimGivenUpError)) throw err;
    // The head lock's read joins the journal row as it was when the read began: a resend that
    // waited there for its own first commit saw the claim, not the outcome. A second
    // transaction reads the row afresh: a replay, or the same refusal.
    return commitOnce(deps, prepared);
  }
}

/** One commit transaction of commitPrepared. */
async function commitOnce(
  deps: CommitDeps,
  prepared: PreparedCommit,
): Promise<ReplyOf<'ledger.commit'>> {
  const { invocationId, request, carried, commitHash } = prepared;
  const reply = await deps.repository.transaction(async (t) => {
    const { head, journal } = await t.lockHead(invocationId);
    if (journal?.state === 'committed') {
      if (journal.commitHash !== commitHash || journal.outcome === null) {
        throw new DuplicateInvocationError(invocationId);
      }
      return { ...journal.outcome, replayed: true };
    }
    await requireResolvable(t, new Set(carried.map((o) => o.hash)), [
      ['transitionRef', request.transitionRef],
      ['stateRoot', request.stateRoot],
    ]);
    const chained = chainToolCommit(head, request);
    const bound = await t.append({
      objects: carried,
      ...chained,
      journal: { mode: 'tool', invocationId, commitHash, claimToken: request.claimToken ?? null },
    });
    if (!bound) throw new ClaimGivenUpError(invocationId);
    crashpoint('inside-commit');
    return freshCommitReply(chained);
  });

  if (!reply.replayed) {
    afterCommit(deps, {
      entryIndex: reply.entryIndex,
      entryHash: reply.entryHash,
      worldRef: reply.worldRef,
      writtenBy: request.writtenBy,
      invocationId,
    });
  }
  return reply;
}

/**
 * Refuses a commit whose named refs are neither among its objects nor already stored
 * (world-spec §9.1: every ref of an entry resolves from the ledger alone).
 * @returns ref → semantic id of the named refs found stored (not carried)
 * @throws BadRequestError `<field>: object <ref> is neither carried by the commit nor stored`
 */
export async function requireResolvable(
  t: CommitTx,
  carried: Set<string>,
  refs: Array<[string, Ref]>,
): Promise<Map<string, string>> {
  const missing = refs.filter(([, ref]) => !carried.has(ref));
  if (missing.length === 0) return new Map();
  const stored = await t.storedObjects(missing.map(([, ref]) => ref));
  for (const [field, ref] of missing) {
    if (!stored.has(ref))
      throw new BadRequestError(
        `${field}: object ${ref} is neither carried by the commit nor stored`,
      );
  }
  return stored;
}

/** The highest entry index each replica of this process committed or read at start. */
const headSeen = new Map<string, number>();

/**
 * Records a head this replica saw (after a commit, or read at start) in
 * `world_ledger_head_index{replica}`; an older index never lowers it (commits of one replica
 * may answer out of order).
 */
export function observeHead(replica: string, entryIndex: number): void {
  if (entryIndex <= (headSeen.get(replica) ?? -1)) return;
  headSeen.set(replica, entryIndex);
  worldMetrics().ledgerHeadIndex.set({ replica }, entryIndex);
}

/**
 * What follows a committed entry (issue 6 "Operations"): the head metric, one `entry committed`
 * line (it carries the invocation id of the call it commits), then the `ledger.committed` event.
 */
export function afterCommit(deps: CommitDeps, event: RequestOf<'ledger.committed'>): void {
  if (deps.replica !== undefined) observeHead(deps.replica, event.entryIndex);
  deps.checkpoints?.committed();
  log.info(
    { entryIndex: event.entryIndex, entryHash: event.entryHash, writtenBy: event.writtenBy },
    'entry committed',
  );
  announce(deps.events, event);
}

/**
 * Broadcasts `ledger.committed` after the transaction committed. At most once: a lost event
 * never undoes a commit, so a failure here is logged, not thrown.
 */
export function announce(
  events: Pick<RpcClient, 'emit'>,
  event: RequestOf<'ledger.committed'>,
): void {
  try {
    events.emit('ledger.committed', event);
  } catch (err) {
    log.warn({ err, entryIndex: event.entryIndex }, 'ledger.committed was not published');
  }
}
