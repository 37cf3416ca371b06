import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { ReadCheckpoint, ReadLogKey } from './read-checkpoint.js';
import { ReadConsistency, ReadInclusion } from './read-proofs.js';

/** The transparency-log subjects: checkpoint, verifier key, inclusion and consistency proofs. */
@Controller()
export class TlogController {
  constructor(
    private readonly readCheckpoint: ReadCheckpoint,
    private readonly readLogKey: ReadLogKey,
    private readonly readInclusion: ReadInclusion,
    private readonly readConsistency: ReadConsistency,
  ) {}

  @MessagePattern('ledger.tlog.checkpoint')
  checkpoint(@Payload() data: unknown) {
    parseRequest('ledger.tlog.checkpoint', data ?? {});
    return this.readCheckpoint.execute();
  }

  @MessagePattern('ledger.tlog.key')
  key(@Payload() data: unknown) {
    parseRequest('ledger.tlog.key', data ?? {});
    return this.readLogKey.execute();
  }

  @MessagePattern('ledger.tlog.inclusion')
  inclusion(@Payload() data: unknown) {
    return this.readInclusion.execute(parseRequest('ledger.tlog.inclusion', data));
  }

  @MessagePattern('ledger.tlog.consistency')
  consistency(@Payload() data: unknown) {
    return this.readConsistency.execute(parseRequest('ledger.tlog.consistency', data));
  }
}
