import type { ReplyOf } from '@world/contracts';
import { receiptOf } from './invocation-law.js';
import type { JournalRepository } from './journal.repository.js';

/**
 * `ledger.receipt.get`: the receipt of an invocation id — not-started, indeterminate or resolved
 * with the committed world ref. Law: receiptOf (world-internals §5.3, world-spec §5.11). The
 * gateway limits the public route to `rest:` ids; the planner reads coordinator ids here.
 */
export async function getReceipt(
  repository: JournalRepository,
  invocationId: string,
): Promise<ReplyOf<'ledger.receipt.get'>> {
  return receiptOf(invocationId, await repository.find(invocationId, false));
}
