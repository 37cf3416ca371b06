import type { ParsedRequestOf, ReplyOf } from '@world/contracts';
import { checkCoordinatorInvocationId } from '../commit/chain.js';
import { verifiedReplay } from './get-invocation.js';
import type { JournalRepository } from './journal.repository.js';

/**
 * `ledger.invocation.begin`: claims an idempotent invocation id before the call runs, or says
 * what became of the first attempt: claimed | committed (with the output's exact bytes) |
 * in-flight | mismatch | ended (lapsed, uncertain, abandoned). Law: decideBegin
 * (DESIGN.md §7.4; world-spec §4.6, §6.5).
 * A committed answer's output is re-hashed before it is served (verifiedReplay).
 * @throws BadRequestError when the id is not `a2a:`/`mcp:` + episode + task
 * @throws StoredObjectCorruptError when the committed output's bytes do not hash to its ref
 */
export async function beginInvocation(
  repository: JournalRepository,
  request: ParsedRequestOf<'ledger.invocation.begin'>,
): Promise<ReplyOf<'ledger.invocation.begin'>> {
  const invocationId = checkCoordinatorInvocationId(request.invocationId);
  return verifiedReplay(
    await repository.begin(
      invocationId,
      request.requestHash,
      request.ttlMs,
      request.reclaim ?? false,
    ),
  );
}
