import { Module, type DynamicModule } from '@nestjs/common';
import { RPC, type RpcClient } from '@world/runtime';
import { AdmitCall } from './invoke/admit-call.js';
import { CallCancellations } from './invoke/call-cancellations.js';
import { CommitCall } from './invoke/commit-call.js';
import { EffectCall } from './invoke/effect-call.js';
import { EpisodeLeases } from './invoke/episode-leases.js';
import { FinishCall } from './invoke/finish-call.js';
import { InvocationClaims } from './invoke/invocation-claims.js';
import { InvokeController } from './invoke/invoke.controller.js';
import { InvokeTool } from './invoke/invoke-tool.js';
import { PlanCall } from './invoke/plan-call.js';
import { RegistryController } from './registry/registry.controller.js';
import { ToolRegistry } from './registry/tool-registry.js';
import { PLANNER_SETTINGS, type PlannerSettings } from './settings.js';

/** Wiring of the planner: the registry, the invoke use case and its steps, their controllers. */
@Module({})
export class PlannerModule {
  static register(deps: {
    rpc: RpcClient;
    settings: PlannerSettings;
    registry: ToolRegistry;
    /** the client cancellations this replica heard (shared with its liveness answer) */
    cancellations: CallCancellations;
  }): DynamicModule {
    return {
      module: PlannerModule,
      controllers: [InvokeController, RegistryController],
      providers: [
        { provide: RPC, useValue: deps.rpc },
        { provide: PLANNER_SETTINGS, useValue: deps.settings },
        { provide: ToolRegistry, useValue: deps.registry },
        { provide: CallCancellations, useValue: deps.cancellations },
        AdmitCall,
        InvocationClaims,
        PlanCall,
        FinishCall,
        CommitCall,
        EpisodeLeases,
        EffectCall,
        InvokeTool,
      ],
    };
  }
}
