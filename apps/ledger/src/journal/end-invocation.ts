import type { ParsedRequestOf, ReplyOf } from '@world/contracts';
import type { JournalRepository } from './journal.repository.js';

/**
 * `ledger.invocation.end`: marks a claim that did not commit as ended with the caller's reason
 * (uncertain: it may have run; abandoned: nothing ran); with a claim token, only that attempt's
 * claim. Once ended, no commit of the claim can land (DESIGN.md §2). A committed, ended,
 * reclaimed or unknown id is left as it is and answers ended:false (DESIGN.md §7.4).
 */
export async function endInvocation(
  repository: JournalRepository,
  request: ParsedRequestOf<'ledger.invocation.end'>,
): Promise<ReplyOf<'ledger.invocation.end'>> {
  return {
    ended: await repository.end(request.invocationId, request.reason, request.claimToken),
  };
}
