import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import type { Request } from 'express';
import { OPERATOR_BODY_MAX_BYTES } from '@world/contracts';
import { OperatorGuard } from '../auth/guards.js';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { createEpisode } from './create-episode.js';
import { listSessions, mintSession, revokeSession } from './sessions.js';

/** The routes the `world` CLI drives; the operator credential only (DESIGN.md §1 `apps/cli`). */
@Controller('v1/operator')
@UseGuards(OperatorGuard)
export class OperatorController {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  @Post('episodes')
  @HttpCode(200)
  async createEpisode(@Req() req: Request) {
    return createEpisode(
      this.gateway.rpc,
      parseJsonObject(await readBody(req, OPERATOR_BODY_MAX_BYTES)),
    );
  }

  @Post('sessions')
  @HttpCode(200)
  async mintSession(@Req() req: Request) {
    return mintSession(
      this.gateway.rpc,
      parseJsonObject(await readBody(req, OPERATOR_BODY_MAX_BYTES)),
    );
  }

  @Get('sessions')
  listSessions(@Query('episode') episode: unknown) {
    return listSessions(this.gateway.rpc, episode);
  }

  @Delete('sessions/:credentialId')
  revokeSession(@Param('credentialId') credentialId: string) {
    return revokeSession(this.gateway.rpc, credentialId, (id) => this.gateway.sessions.forget(id));
  }
}
