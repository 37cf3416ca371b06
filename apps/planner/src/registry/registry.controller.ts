import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest, type ReplyOf } from '@world/contracts';
import { ToolRegistry } from './tool-registry.js';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';

/** `planner.tools.list`, `planner.info`, `planner.health`. */
@Controller()
export class RegistryController {
  constructor(
    private readonly registry: ToolRegistry,
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
  ) {}

  @MessagePattern('planner.tools.list')
  list(@Payload() data: unknown): ReplyOf<'planner.tools.list'> {
    const req = parseRequest('planner.tools.list', data);
    return { tools: this.registry.visible(req.grants, req.now) };
  }

  @MessagePattern('planner.info')
  info(): ReplyOf<'planner.info'> {
    return {
      interpreter: this.registry.interpreterRef,
      interpreterVersion: this.registry.interpreterText,
      semanticsEpoch: this.registry.tools[0]?.descriptor.semanticsEpoch ?? 1,
    };
  }

  @MessagePattern('planner.health')
  health(): ReplyOf<'planner.health'> {
    return { service: 'planner', status: 'ok', replica: this.settings.replica };
  }
}
