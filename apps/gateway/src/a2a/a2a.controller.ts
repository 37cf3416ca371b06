import { All, Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { A2aEndpoint } from './a2a-endpoint.js';

/**
 * The A2A routes (world-spec §5.13, §6.5; DESIGN.md §7.6). Raw requests go to the A2A endpoint
 * unparsed: it authorizes first and reads bodies with the A2A limit itself.
 */
@Controller()
export class A2aController {
  constructor(private readonly a2a: A2aEndpoint) {}

  /** The reference `tasks/send` (also `/a2a/`). */
  @All('a2a')
  async tasksSend(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.a2a.tasksSend(req, res);
  }

  /** The current protocol: A2A 1.0 and its 0.3 compatibility layer through `@a2a-js/sdk`. */
  @All('a2a/jsonrpc')
  async jsonRpc(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.a2a.jsonRpc(req, res);
  }

  /** The A2A 1.0 card (its 0.3 rendering without `A2A-Version`). */
  @Get('.well-known/agent-card.json')
  async currentCard(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.a2a.card(req, res, 'current');
  }

  /** The reference card of world-spec §5.13. */
  @Get('.well-known/agent.json')
  async referenceCard(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.a2a.card(req, res, 'reference');
  }
}
