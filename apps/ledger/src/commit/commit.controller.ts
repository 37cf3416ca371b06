import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { CommitInvocation } from './commit-invocation.js';
import { CommitRest } from './commit-rest.js';

/** The two ways to append: `ledger.commit` (tool calls) and `ledger.restCommit` (POST /v1/commit). */
@Controller()
export class CommitController {
  constructor(
    private readonly commitInvocation: CommitInvocation,
    private readonly commitRest: CommitRest,
  ) {}

  @MessagePattern('ledger.commit')
  commit(@Payload() data: unknown) {
    return this.commitInvocation.execute(parseRequest('ledger.commit', data));
  }

  @MessagePattern('ledger.restCommit')
  restCommit(@Payload() data: unknown) {
    return this.commitRest.execute(parseRequest('ledger.restCommit', data));
  }
}
