import { Controller, Get, Header, Query, UseGuards } from '@nestjs/common';
import { ReadAccessGuard } from '../auth/guards.js';
import { ReadTlog } from './read-tlog.js';

/**
 * The transparency-log routes. The verifier key is a public key, published to anyone
 * (an auditor needs it before holding any credential); checkpoints and proofs are reads of the
 * log's skeleton, open to any session as GET /v1/log is.
 */
@Controller()
export class TlogController {
  constructor(private readonly tlog: ReadTlog) {}

  @Get('.well-known/world-log-key')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  key(): Promise<string> {
    return this.tlog.key();
  }

  @Get('v1/checkpoint')
  @UseGuards(ReadAccessGuard)
  @Header('Content-Type', 'text/plain; charset=utf-8')
  checkpoint(): Promise<string> {
    return this.tlog.checkpoint();
  }

  @Get('v1/proof/inclusion')
  @UseGuards(ReadAccessGuard)
  inclusion(@Query('index') index: unknown, @Query('size') size: unknown) {
    return this.tlog.inclusion(index, size);
  }

  @Get('v1/proof/consistency')
  @UseGuards(ReadAccessGuard)
  consistency(@Query('from') from: unknown, @Query('to') to: unknown) {
    return this.tlog.consistency(from, to);
  }
}
