import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { REPLICA, RPC, type RpcClient } from '@world/runtime';
import { CommitGroup } from './commit-group.js';
import { commitInvocation, type CommitDeps } from './commit-invocation.js';
import { commitRest } from './commit-rest.js';
import { CommitRepository } from './commit.repository.js';
import { CHECKPOINT_SIGNER } from '../constants.js';
import type { CheckpointSigner } from '../tlog/checkpoint-signer.js';

/** The two ways to append: `ledger.commit` (tool calls) and `ledger.restCommit` (POST /v1/commit). */
@Controller()
export class CommitController {
  constructor(
    private readonly repository: CommitRepository,
    @Inject(RPC) private readonly events: RpcClient,
    @Inject(REPLICA) private readonly replica: string,
    @Inject(CHECKPOINT_SIGNER) private readonly signer: CheckpointSigner,
  ) {
    this.group = new CommitGroup(this.deps());
  }

  /** This replica's group commit of `ledger.commit` (one per controller, so per replica). */
  private readonly group: CommitGroup;

  private deps(): CommitDeps {
    return {
      repository: this.repository,
      events: this.events,
      replica: this.replica,
      checkpoints: this.signer,
    };
  }

  @MessagePattern('ledger.commit')
  commit(@Payload() data: unknown) {
    return commitInvocation(this.deps(), parseRequest('ledger.commit', data), this.group);
  }

  @MessagePattern('ledger.restCommit')
  restCommit(@Payload() data: unknown) {
    return commitRest(this.deps(), parseRequest('ledger.restCommit', data));
  }
}
