import { Controller, Get, Header, Inject, Query, UseGuards } from '@nestjs/common';
import { ReadAccessGuard } from '../auth/guards.js';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';
import {
  readCheckpoint,
  readConsistencyProof,
  readInclusionProof,
  readLogKey,
} from './read-tlog.js';

/**
 * The transparency-log routes (issue 12). The verifier key is a public key, published to anyone
 * (an auditor needs it before holding any credential); checkpoints and proofs are reads of the
 * log's skeleton, open to any session as GET /v1/log is.
 */
@Controller()
export class TlogController {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  @Get('.well-known/world-log-key')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  key(): Promise<string> {
    return readLogKey(this.gateway.rpc);
  }

  @Get('v1/checkpoint')
  @UseGuards(ReadAccessGuard)
  @Header('Content-Type', 'text/plain; charset=utf-8')
  checkpoint(): Promise<string> {
    return readCheckpoint(this.gateway.rpc);
  }

  @Get('v1/proof/inclusion')
  @UseGuards(ReadAccessGuard)
  inclusion(@Query('index') index: unknown, @Query('size') size: unknown) {
    return readInclusionProof(this.gateway.rpc, index, size);
  }

  @Get('v1/proof/consistency')
  @UseGuards(ReadAccessGuard)
  consistency(@Query('from') from: unknown, @Query('to') to: unknown) {
    return readConsistencyProof(this.gateway.rpc, from, to);
  }
}
