import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest, type ReplyOf } from '@world/contracts';
import { CHECKPOINT_SIGNER } from '../constants.js';
import type { CheckpointSigner } from './checkpoint-signer.js';
import { readConsistency, readInclusion } from './read-proofs.js';
import { TreeRepository } from './tree.repository.js';

/** The transparency-log subjects: checkpoint, verifier key, inclusion and consistency proofs. */
@Controller()
export class TlogController {
  constructor(
    @Inject(CHECKPOINT_SIGNER) private readonly signer: CheckpointSigner,
    private readonly tree: TreeRepository,
  ) {}

  @MessagePattern('ledger.tlog.checkpoint')
  async checkpoint(@Payload() data: unknown): Promise<ReplyOf<'ledger.tlog.checkpoint'>> {
    parseRequest('ledger.tlog.checkpoint', data ?? {});
    const c = await this.signer.current();
    return {
      note: c.note,
      origin: c.origin,
      size: c.size,
      rootHash: c.rootHash.toString('base64'),
    };
  }

  @MessagePattern('ledger.tlog.key')
  key(@Payload() data: unknown): ReplyOf<'ledger.tlog.key'> {
    parseRequest('ledger.tlog.key', data ?? {});
    return { vkey: this.signer.vkey, origin: this.signer.origin };
  }

  @MessagePattern('ledger.tlog.inclusion')
  inclusion(@Payload() data: unknown) {
    return readInclusion(this.tree, parseRequest('ledger.tlog.inclusion', data));
  }

  @MessagePattern('ledger.tlog.consistency')
  consistency(@Payload() data: unknown) {
    return readConsistency(this.tree, parseRequest('ledger.tlog.consistency', data));
  }
}
