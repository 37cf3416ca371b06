import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { OPS_ROUTES, answerOps } from '@world/runtime';
import { OPS, type OpsContext } from './ops.tokens.js';

/**
 * `GET /livez`, `GET /readyz` and `GET /metrics` on the gateway's main HTTP port, answered
 * exactly as every health port answers them, so a scraper needs no second port per gateway
 * (packages/runtime/README.md "Health, readiness, metrics"). Open like `GET /v1/health`: they carry
 * no session data.
 */
@Controller()
export class OpsController {
  constructor(@Inject(OPS) private readonly ops: OpsContext) {}

  @Get([OPS_ROUTES.live, OPS_ROUTES.ready, OPS_ROUTES.metrics])
  serve(@Req() req: Request, @Res() res: Response): Promise<void> {
    return answerOps(req, res, this.ops.checks, this.ops.isDraining?.() ?? false);
  }
}
