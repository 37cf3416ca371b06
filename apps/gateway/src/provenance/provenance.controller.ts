import {
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { COMMIT_BODY_MAX_BYTES, MESSAGES, type ReadScope } from '@world/contracts';
import { Authenticator } from '../auth/authenticator.js';
import { ReadAccessGuard, ReaderScope } from '../auth/guards.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { sendJson } from '../http/send-json.js';
import { CommitWorld } from './commit-world.js';
import { ReadLog } from './read-log.js';
import { ReadObjects } from './read-objects.js';
import { ReadReceipt } from './read-receipt.js';
import { ReadWorlds } from './read-worlds.js';

/** The path segment of `/v1/objects/by-semantic-id` when it arrives without a name. */
const BY_SEMANTIC_ID = 'by-semantic-id';

/** A `{name...}` wildcard as Express 5 hands it: the decoded segments. */
function joined(segments: string[] | string): string {
  return Array.isArray(segments) ? segments.join('/') : segments;
}

/** The provenance REST routes (world-spec §5.3–§5.11): thin, each one use case. */
@Controller('v1')
export class ProvenanceController {
  constructor(
    private readonly auth: Authenticator,
    private readonly worlds: ReadWorlds,
    private readonly objects: ReadObjects,
    private readonly log: ReadLog,
    private readonly receipts: ReadReceipt,
    private readonly commitWorld: CommitWorld,
  ) {}

  @Get('head')
  @UseGuards(ReadAccessGuard)
  @Header('Content-Type', 'text/plain; charset=utf-8')
  head(): Promise<string> {
    return this.worlds.head();
  }

  @Get('worlds/:ref')
  @UseGuards(ReadAccessGuard)
  world(@Param('ref') ref: string) {
    return this.worlds.world(ref);
  }

  @Get('objects/by-semantic-id/*name')
  @UseGuards(ReadAccessGuard)
  bySemanticId(
    @Param('name') name: string[],
    @Query('after') after: unknown,
    @Query('limit') limit: unknown,
    @ReaderScope() scope: ReadScope,
  ) {
    return this.objects.bySemanticId(scope, joined(name), after, limit);
  }

  @Get('objects/:ref')
  @UseGuards(ReadAccessGuard)
  object(
    @Param('ref') ref: string,
    @Query('payload') payload: unknown,
    @ReaderScope() scope: ReadScope,
  ) {
    if (ref === BY_SEMANTIC_ID) return this.objects.bySemanticId(scope, '', undefined, undefined);
    return this.objects.object(scope, ref, payload === 'true');
  }

  @Get('effects/:ref')
  @UseGuards(ReadAccessGuard)
  effectRecord(@Param('ref') ref: string, @ReaderScope() scope: ReadScope) {
    return this.objects.brokerRecord(scope, ref);
  }

  @Get('log/:index')
  @UseGuards(ReadAccessGuard)
  logEntry(@Param('index') index: string) {
    return this.log.entry(index);
  }

  /** The page is written straight to the socket: 500 entries skip Express's ETag hash (sendJson). */
  @Get('log')
  @UseGuards(ReadAccessGuard)
  async logRange(
    @Query('from') from: unknown,
    @Query('limit') limit: unknown,
    @Res() res: Response,
  ): Promise<void> {
    sendJson(res, await this.log.range(from, limit));
  }

  @Get('locate')
  @UseGuards(ReadAccessGuard)
  locate(
    @Query('ref') ref: unknown,
    @Query('roles') roles: unknown,
    @Query('invocation') invocation: unknown,
    @ReaderScope() scope: ReadScope,
  ) {
    return this.log.locate(scope, { ref, roles, invocation });
  }

  @Get('registry/*name')
  @UseGuards(ReadAccessGuard)
  registry(@Param('name') name: string[]) {
    return this.worlds.registry(joined(name));
  }

  @Get('receipts/:id')
  @UseGuards(ReadAccessGuard)
  receipt(@Param('id') id: string, @ReaderScope() scope: ReadScope) {
    return this.receipts.execute(scope, id);
  }

  /**
   * The only REST mutation: the credential first — the operator's, or a session holding the
   * commit grant (DESIGN.md §3) — then the body (world-spec §5.10).
   */
  @Post('commit')
  @HttpCode(200)
  async commit(@Req() req: Request) {
    const author = await this.auth.committer(
      req.headers.authorization,
      MESSAGES.commitSessionAbsent,
      Date.now(),
    );
    const body = parseJsonObject(await readBody(req, COMMIT_BODY_MAX_BYTES));
    return this.commitWorld.execute(author, body);
  }
}
