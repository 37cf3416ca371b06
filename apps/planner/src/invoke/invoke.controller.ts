import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest, type ReplyOf } from '@world/contracts';
import { InvokeTool } from './invoke-tool.js';

/** `planner.invoke`: one tool call, to its committed answer. */
@Controller()
export class InvokeController {
  constructor(private readonly invokeTool: InvokeTool) {}

  @MessagePattern('planner.invoke')
  invoke(@Payload() data: unknown): Promise<ReplyOf<'planner.invoke'>> {
    return this.invokeTool.run(parseRequest('planner.invoke', data));
  }
}
