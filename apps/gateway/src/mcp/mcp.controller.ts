import { All, Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { McpEndpoint } from './mcp-endpoint.js';

/** `/mcp` and `/mcp/`: the raw request goes to the MCP endpoint unparsed (ecosystem.md §8). */
@Controller()
export class McpController {
  constructor(private readonly mcp: McpEndpoint) {}

  @All('mcp')
  async serve(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.mcp.handle(req, res);
  }
}
