/**
 * `ledger.tlog.checkpoint` and `ledger.tlog.key`: the log's signed checkpoint of the selected
 * head and the key that verifies it (C2SP tlog-checkpoint, signed-note; checkpoint-signer.ts).
 */
import { Inject, Injectable } from '@nestjs/common';
import type { ReplyOf } from '@world/contracts';
import { CHECKPOINT_SIGNER } from '../constants.js';
import type { CheckpointSigner } from './checkpoint-signer.js';

/** `ledger.tlog.checkpoint`: the signed checkpoint of the selected head. */
@Injectable()
export class ReadCheckpoint {
  constructor(@Inject(CHECKPOINT_SIGNER) private readonly signer: CheckpointSigner) {}

  /**
   * @returns the note, its origin, size and root hash (base64)
   * @throws ServiceUnavailableError when the stored tree does not extend the signed one
   */
  async execute(): Promise<ReplyOf<'ledger.tlog.checkpoint'>> {
    const c = await this.signer.current();
    return {
      note: c.note,
      origin: c.origin,
      size: c.size,
      rootHash: c.rootHash.toString('base64'),
    };
  }
}

/** `ledger.tlog.key`: the verifier key and origin of the log's checkpoints. */
@Injectable()
export class ReadLogKey {
  constructor(@Inject(CHECKPOINT_SIGNER) private readonly signer: CheckpointSigner) {}

  /** @returns the C2SP signed-note verifier key and the log's origin line */
  execute(): ReplyOf<'ledger.tlog.key'> {
    return { vkey: this.signer.vkey, origin: this.signer.origin };
  }
}
