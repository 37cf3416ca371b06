import type { ReplyOf } from '@world/contracts';
import { invocationOf } from './invocation-law.js';
import type { JournalRepository } from './journal.repository.js';

/**
 * `ledger.invocation.get`: the read-only view of an invocation id (A2A GetTask): none |
 * committed | in-flight | ended. Law: invocationOf. Writes nothing.
 */
export async function getInvocation(
  repository: JournalRepository,
  invocationId: string,
): Promise<ReplyOf<'ledger.invocation.get'>> {
  return invocationOf(await repository.find(invocationId, true));
}
