import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { Request } from 'express';
import { OPERATOR_BODY_MAX_BYTES } from '@world/contracts';
import { OperatorGuard } from '../auth/guards.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { CreateEpisode } from './create-episode.js';
import { ListSessions, MintSession, RevokeSession } from './sessions.js';

/** The routes the `world` CLI drives; the operator credential only (DESIGN.md §1 `apps/cli`). */
@Controller('v1/operator')
@UseGuards(OperatorGuard)
export class OperatorController {
  constructor(
    private readonly createEpisode: CreateEpisode,
    private readonly mintSession: MintSession,
    private readonly listSessions: ListSessions,
    private readonly revokeSession: RevokeSession,
  ) {}

  @Post('episodes')
  @HttpCode(200)
  async create(@Req() req: Request) {
    return this.createEpisode.execute(
      parseJsonObject(await readBody(req, OPERATOR_BODY_MAX_BYTES)),
    );
  }

  @Post('sessions')
  @HttpCode(200)
  async mint(@Req() req: Request) {
    return this.mintSession.execute(parseJsonObject(await readBody(req, OPERATOR_BODY_MAX_BYTES)));
  }

  @Get('sessions')
  list(@Query('episode') episode: unknown) {
    return this.listSessions.execute(episode);
  }

  @Delete('sessions/:credentialId')
  revoke(@Param('credentialId') credentialId: string) {
    return this.revokeSession.execute(credentialId);
  }
}
