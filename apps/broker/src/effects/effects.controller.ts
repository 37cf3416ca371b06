import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { ExecuteEffect } from './execute-effect.js';
import { ListInvocationEffects } from './list-invocation-effects.js';

/** The `broker.effect.*` subjects. */
@Controller()
export class EffectsController {
  constructor(
    private readonly executeEffect: ExecuteEffect,
    private readonly listInvocationEffects: ListInvocationEffects,
  ) {}

  @MessagePattern('broker.effect.execute')
  execute(@Payload() data: unknown) {
    return this.executeEffect.execute(parseRequest('broker.effect.execute', data));
  }

  @MessagePattern('broker.effect.byInvocation')
  byInvocation(@Payload() data: unknown) {
    return this.listInvocationEffects.execute(
      parseRequest('broker.effect.byInvocation', data).invocationId,
    );
  }
}
