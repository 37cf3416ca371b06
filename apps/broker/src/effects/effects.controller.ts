import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { RPC, refuseUnfitBus, type RpcClient } from '@world/runtime';
import { ExecuteEffect } from './execute-effect.js';
import { ListInvocationEffects } from './list-invocation-effects.js';

/** The `broker.effect.*` subjects. */
@Controller()
export class EffectsController {
  constructor(
    private readonly executeEffect: ExecuteEffect,
    private readonly listInvocationEffects: ListInvocationEffects,
    @Inject(RPC) private readonly rpc: RpcClient,
  ) {}

  /**
   * Runs one effect; refused before anything is written while this broker's NATS server cannot
   * carry the call's commit (refuseUnfitBus: a reconnect to a smaller max_payload).
   */
  @MessagePattern('broker.effect.execute')
  async execute(@Payload() data: unknown) {
    refuseUnfitBus(this.rpc);
    return this.executeEffect.execute(parseRequest('broker.effect.execute', data));
  }

  @MessagePattern('broker.effect.byInvocation')
  byInvocation(@Payload() data: unknown) {
    return this.listInvocationEffects.execute(
      parseRequest('broker.effect.byInvocation', data).invocationId,
    );
  }
}
