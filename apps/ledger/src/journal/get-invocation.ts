import { decodeBase64 } from '@world/canonical';
import type { ReplyOf } from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { invocationOf } from './invocation-law.js';
import type { JournalRepository } from './journal.repository.js';

/**
 * `ledger.invocation.get`: the read-only view of an invocation id (A2A GetTask): none |
 * committed | in-flight | ended. Law: invocationOf. Writes nothing.
 * @throws StoredObjectCorruptError when the committed output's bytes do not hash to its ref
 */
export async function getInvocation(
  repository: JournalRepository,
  invocationId: string,
): Promise<ReplyOf<'ledger.invocation.get'>> {
  return verifiedReplay(invocationOf(await repository.find(invocationId, true)));
}

/**
 * A committed answer's output bytes re-hashed against their ref before they are served as the
 * committed result (world-internals §2.2 step 5.4: "read back and integrity-checked"); any other
 * answer unchanged.
 * @throws StoredObjectCorruptError on a mismatch
 */
export function verifiedReplay<T extends { state: string }>(reply: T): T {
  if (reply.state !== 'committed') return reply;
  const { outputRef, output } = reply as T & { outputRef: string; output: string };
  verifyStored(LEDGER_SERVICE, {
    kind: 'object',
    ref: outputRef,
    payload: decodeBase64(output, 'output'),
  });
  return reply;
}
