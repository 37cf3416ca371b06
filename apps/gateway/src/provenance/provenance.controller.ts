import {
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { COMMIT_BODY_MAX_BYTES, MESSAGES, type ReadScope } from '@world/contracts';
import { ReadAccessGuard, ReaderScope } from '../auth/guards.js';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { sendJson } from '../http/send-json.js';
import { commitWorld } from './commit-world.js';
import { readLogEntry, readLogRange } from './read-log.js';
import { listObjectsBySemanticId, readBrokerRecord, readObject } from './read-objects.js';
import { readReceipt } from './read-receipt.js';
import { readHead, readRegistry, readWorld } from './read-worlds.js';

/** The path segment of `/v1/objects/by-semantic-id` when it arrives without a name. */
const BY_SEMANTIC_ID = 'by-semantic-id';

/** A `{name...}` wildcard as Express 5 hands it: the decoded segments. */
function joined(segments: string[] | string): string {
  return Array.isArray(segments) ? segments.join('/') : segments;
}

/** The provenance REST routes (world-spec §5.3–§5.11): thin, each one use case. */
@Controller('v1')
export class ProvenanceController {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  @Get('head')
  @UseGuards(ReadAccessGuard)
  @Header('Content-Type', 'text/plain; charset=utf-8')
  head(): Promise<string> {
    return readHead(this.gateway.rpc);
  }

  @Get('worlds/:ref')
  @UseGuards(ReadAccessGuard)
  world(@Param('ref') ref: string) {
    return readWorld(this.gateway.rpc, ref);
  }

  @Get('objects/by-semantic-id/*name')
  @UseGuards(ReadAccessGuard)
  bySemanticId(
    @Param('name') name: string[],
    @Query('after') after: unknown,
    @Query('limit') limit: unknown,
    @ReaderScope() scope: ReadScope,
  ) {
    return listObjectsBySemanticId(this.gateway.rpc, scope, joined(name), after, limit);
  }

  @Get('objects/:ref')
  @UseGuards(ReadAccessGuard)
  object(
    @Param('ref') ref: string,
    @Query('payload') payload: unknown,
    @ReaderScope() scope: ReadScope,
  ) {
    if (ref === BY_SEMANTIC_ID)
      return listObjectsBySemanticId(this.gateway.rpc, scope, '', undefined, undefined);
    return readObject(this.gateway.rpc, scope, ref, payload === 'true');
  }

  @Get('effects/:ref')
  @UseGuards(ReadAccessGuard)
  effectRecord(@Param('ref') ref: string, @ReaderScope() scope: ReadScope) {
    return readBrokerRecord(this.gateway.rpc, scope, ref);
  }

  @Get('log/:index')
  @UseGuards(ReadAccessGuard)
  logEntry(@Param('index') index: string) {
    return readLogEntry(this.gateway.rpc, index);
  }

  /** The page is written straight to the socket: 500 entries skip Express's ETag hash (sendJson). */
  @Get('log')
  @UseGuards(ReadAccessGuard)
  async logRange(
    @Query('from') from: unknown,
    @Query('limit') limit: unknown,
    @Res() res: Response,
  ): Promise<void> {
    sendJson(res, await readLogRange(this.gateway.rpc, from, limit));
  }

  @Get('registry/*name')
  @UseGuards(ReadAccessGuard)
  registry(@Param('name') name: string[]) {
    return readRegistry(this.gateway.rpc, joined(name));
  }

  @Get('receipts/:id')
  @UseGuards(ReadAccessGuard)
  receipt(@Param('id') id: string, @ReaderScope() scope: ReadScope) {
    return readReceipt(this.gateway.rpc, scope, id);
  }

  /**
   * The only REST mutation: the credential first — the operator's, or a session holding the
   * commit grant (DESIGN.md §3) — then the body (world-spec §5.10).
   */
  @Post('commit')
  @HttpCode(200)
  async commit(@Req() req: Request) {
    const author = await this.gateway.auth.committer(
      req.headers.authorization,
      MESSAGES.commitSessionAbsent,
      Date.now(),
    );
    const body = parseJsonObject(await readBody(req, COMMIT_BODY_MAX_BYTES));
    return commitWorld(this.gateway.rpc, author, body);
  }
}
