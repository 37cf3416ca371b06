import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';

/** `/mcp` and `/mcp/`: the raw request goes to the MCP endpoint unparsed (ecosystem.md §8). */
@Controller()
export class McpController {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  @All('mcp')
  async serve(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.gateway.mcp.handle(req, res);
  }
}
