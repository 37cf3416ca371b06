import { Injectable } from '@nestjs/common';
import {
  confinementOf,
  episodeOfInvocationId,
  NotFoundError,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { receiptOf } from './invocation-law.js';
import { JournalRepository } from './journal.repository.js';

/** `ledger.receipt.get`: the receipt of an invocation id. */
@Injectable()
export class GetReceipt {
  constructor(private readonly journal: JournalRepository) {}

  /**
   * The receipt of an invocation id — not-started, indeterminate or resolved
   * with the committed world ref. Law: receiptOf (world-internals §5.3, world-spec §5.11). The
   * gateway limits the public route to `rest:` ids. A scope confined to an episode reads only the
   * receipts of ids filed under it (`rest:<episode>:<id>`; DESIGN.md §3). A resolved receipt is
   * served only when its world ref names a stored world standing on the journaled entry, both
   * recomputing to their hashes.
   * @throws NotFoundError 'receipt not found' for an id that is not the scope's to read
   * @throws StoredObjectCorruptError when the journaled outcome does not match the stored chain
   */
  async execute(
    request: ParsedRequestOf<'ledger.receipt.get'>,
  ): Promise<ReplyOf<'ledger.receipt.get'>> {
    const { invocationId } = request;
    const episode = confinementOf(request.scope, 'receipt');
    if (episode !== null && episodeOfInvocationId(invocationId) !== episode)
      throw new NotFoundError('receipt not found');
    const found = await this.journal.receipt(invocationId);
    const receipt = receiptOf(invocationId, found?.view ?? null);
    if (receipt.state === 'resolved' && found !== null) {
      verifyStored(LEDGER_SERVICE, {
        kind: 'receipt',
        invocationId,
        worldRef: receipt.resultRef!,
        world: found.world,
        entry: found.entry,
      });
    }
    return receipt;
  }
}
