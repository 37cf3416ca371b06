/**
 * The fast path of a lone `ledger.commit`: one autocommit statement (one round trip, one WAL
 * flush, no BEGIN/COMMIT) instead of the commit transaction's four round trips (BEGIN, lockHead,
 * append, COMMIT). Every PostgreSQL message costs a process wake-up that dominates this
 * machine's CPU, so a commit that arrives alone is chained on the head this replica last saw
 * and written only if that is still the head (append.statements.ts APPEND_ON_HEAD). Whenever
 * the fast path cannot be sure — no head seen yet, a ref not carried, the head moved, a journal
 * row to look at — it writes nothing and the caller commits in the transaction as before.
 */
import { InvalidRefError } from '@world/canonical';
import type { ReplyOf } from '@world/contracts';
import { crashpointArmed } from '@world/runtime';
import type { ToolAppendWrite } from './append.statements.js';
import { chainToolCommit, freshCommitReply } from './chain.js';
import type { PreparedCommit } from './commit-invocation.js';
import type { CommitRepository } from './commit.repository.js';

/**
 * Commits a prepared tool call in one statement on the head `repository` last saw, when it can
 * answer exactly what the commit transaction (commitPrepared) would: the same entry, world,
 * journal row and reply. It does not try when no head was seen yet, when transitionRef or
 * stateRoot is not carried (whether they are stored is the transaction's question,
 * requireResolvable), or when a ref is malformed (the transaction refuses it in its own order).
 * It steps aside while the `inside-commit` crash point is armed (the transaction places it after
 * its journal check), and for FAST_PATH_BACKOFF lone commits after two misses in a row (last-head.ts).
 * @returns the reply of a commit written now (replayed:false); null when nothing was written —
 *   the caller must commit through the transaction, which also answers resends and duplicates
 * @throws whatever the database throws for the statement (as the transaction would)
 */
export async function commitFast(
  repository: CommitRepository,
  prepared: PreparedCommit,
): Promise<ReplyOf<'ledger.commit'> | null> {
  // With the crash point armed the transaction runs: there it fires only for a commit that
  // writes (after the journal check), which one statement cannot stop in the middle of.
  if (crashpointArmed('inside-commit')) return null;
  const head = repository.lastHead.get();
  if (head === null || !repository.lastHead.worthTrying()) return null;
  const { invocationId, request, carried, commitHash } = prepared;
  const hashes = new Set(carried.map((o) => o.hash));
  if (!hashes.has(request.transitionRef) || !hashes.has(request.stateRoot)) return null;
  const chained = chainToolCommit(head, request);
  const write: ToolAppendWrite = {
    objects: carried,
    ...chained,
    journal: { mode: 'tool', invocationId, commitHash, claimToken: request.claimToken ?? null },
  };
  let landed: boolean;
  try {
    landed = await repository.appendOnHead(head, write);
  } catch (err) {
    // A malformed ref is found before anything is sent; the transaction refuses it in its order.
    if (err instanceof InvalidRefError) return null;
    throw err;
  }
  if (!landed) {
    repository.lastHead.missed();
    return null;
  }
  repository.lastHead.landed();
  return freshCommitReply(chained);
}
