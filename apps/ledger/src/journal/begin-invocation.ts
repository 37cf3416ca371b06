import type { ParsedRequestOf, ReplyOf } from '@world/contracts';
import { checkCoordinatorInvocationId } from '../commit/chain.js';
import type { JournalRepository } from './journal.repository.js';

/**
 * `ledger.invocation.begin`: claims an idempotent invocation id before the call runs, or says
 * what became of the first attempt: claimed | committed (with the output's exact bytes) |
 * in-flight | mismatch | ended (lapsed, uncertain, abandoned). Law: decideBegin
 * (DESIGN.md §7.4; world-spec §4.6, §6.5).
 * @throws BadRequestError when the id is not `a2a:`/`mcp:` + episode + task
 */
export function beginInvocation(
  repository: JournalRepository,
  request: ParsedRequestOf<'ledger.invocation.begin'>,
): Promise<ReplyOf<'ledger.invocation.begin'>> {
  const invocationId = checkCoordinatorInvocationId(request.invocationId);
  return repository.begin(
    invocationId,
    request.requestHash,
    request.ttlMs,
    request.reclaim ?? false,
  );
}
