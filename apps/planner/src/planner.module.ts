import { Module, type DynamicModule } from '@nestjs/common';
import { RPC, type RpcClient } from '@world/runtime';
import { InvokeController } from './invoke/invoke.controller.js';
import { InvokeTool } from './invoke/invoke-tool.js';
import { RegistryController } from './registry/registry.controller.js';
import { ToolRegistry } from './registry/tool-registry.js';
import { PLANNER_SETTINGS, type PlannerSettings } from './settings.js';

/** Wiring of the planner: the registry, the invoke use case, their controllers. */
@Module({})
export class PlannerModule {
  static register(deps: { rpc: RpcClient; settings: PlannerSettings; registry: ToolRegistry }): DynamicModule {
    return {
      module: PlannerModule,
      controllers: [InvokeController, RegistryController],
      providers: [
        { provide: RPC, useValue: deps.rpc },
        { provide: PLANNER_SETTINGS, useValue: deps.settings },
        { provide: ToolRegistry, useValue: deps.registry },
        InvokeTool,
      ],
    };
  }
}
