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
import { COMMIT_BODY_MAX_BYTES } from '@world/contracts';
import { CommitSessionGuard, ReadAccessGuard } from '../auth/guards.js';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { sendJson } from '../http/send-json.js';
import { commitWorld } from './commit-world.js';
import { readLogEntry, readLogRange } from './read-log.js';
import { listObjectsBySemanticId, readObject } from './read-objects.js';
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
  ) {
    return listObjectsBySemanticId(this.gateway.rpc, joined(name), after, limit);
  }

  @Get('objects/:ref')
  @UseGuards(ReadAccessGuard)
  object(@Param('ref') ref: string, @Query('payload') payload: unknown) {
    if (ref === BY_SEMANTIC_ID)
      return listObjectsBySemanticId(this.gateway.rpc, '', undefined, undefined);
    return readObject(this.gateway.rpc, ref, payload === 'true');
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
  receipt(@Param('id') id: string) {
    return readReceipt(this.gateway.rpc, id);
  }

  /** The only REST mutation: session first, then the body (world-spec §5.10). */
  @Post('commit')
  @HttpCode(200)
  @UseGuards(CommitSessionGuard)
  async commit(@Req() req: Request) {
    const body = parseJsonObject(await readBody(req, COMMIT_BODY_MAX_BYTES));
    return commitWorld(this.gateway.rpc, body);
  }
}
