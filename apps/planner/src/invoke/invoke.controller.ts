import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest, type ReplyOf } from '@world/contracts';
import { RPC, refuseUnfitBus, type RpcClient } from '@world/runtime';
import { InvokeTool } from './invoke-tool.js';

/**
 * `planner.invoke`: one tool call, to its committed answer — refused before it is claimed,
 * planned or run while the bus cannot carry its commit (refuseUnfitBus: this planner's NATS
 * connection reconnected to a server with a smaller max_payload).
 */
@Controller()
export class InvokeController {
  constructor(
    private readonly invokeTool: InvokeTool,
    @Inject(RPC) private readonly rpc: RpcClient,
  ) {}

  @MessagePattern('planner.invoke')
  async invoke(@Payload() data: unknown): Promise<ReplyOf<'planner.invoke'>> {
    refuseUnfitBus(this.rpc);
    return this.invokeTool.run(parseRequest('planner.invoke', data));
  }
}
