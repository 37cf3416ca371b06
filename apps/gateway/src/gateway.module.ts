import { Module, type DynamicModule } from '@nestjs/common';
import { CommitSessionGuard, OperatorGuard, ReadAccessGuard } from './auth/guards.js';
import { GATEWAY, type GatewayContext } from './gateway.tokens.js';
import { HealthController } from './health/health.controller.js';
import { McpController } from './mcp/mcp.controller.js';
import { OperatorController } from './operator/operator.controller.js';
import { ProvenanceController } from './provenance/provenance.controller.js';

/** The gateway's HTTP routes; wiring only. */
@Module({})
export class GatewayModule {
  static register(context: GatewayContext): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [McpController, HealthController, ProvenanceController, OperatorController],
      providers: [
        { provide: GATEWAY, useValue: context },
        ReadAccessGuard,
        CommitSessionGuard,
        OperatorGuard,
      ],
    };
  }
}
