import { Module, type DynamicModule } from '@nestjs/common';
import { A2aController } from './a2a/a2a.controller.js';
import { OperatorGuard, ReadAccessGuard } from './auth/guards.js';
import { GATEWAY, type GatewayContext } from './gateway.tokens.js';
import { HealthController } from './health/health.controller.js';
import { McpController } from './mcp/mcp.controller.js';
import { OpsController } from './ops/ops.controller.js';
import { OPS, type OpsContext } from './ops/ops.tokens.js';
import { OperatorController } from './operator/operator.controller.js';
import { LogStreamController } from './provenance/log-stream.controller.js';
import { ProvenanceController } from './provenance/provenance.controller.js';
import { TlogController } from './provenance/tlog.controller.js';
import { WorkbenchLogins } from './workbench/access.js';
import { AguiController } from './workbench/agui.controller.js';
import { WorkbenchController } from './workbench/workbench.controller.js';

/** The gateway's HTTP routes; wiring only. */
@Module({})
export class GatewayModule {
  /**
   * @param context what the routes share
   * @param ops the readiness checks of /readyz (default none: embedded mode has no connection)
   */
  static register(context: GatewayContext, ops: OpsContext = { checks: {} }): DynamicModule {
    return {
      module: GatewayModule,
      // LogStreamController before ProvenanceController: `GET /v1/log/stream` must not be taken
      // for `GET /v1/log/{index}`.
      controllers: [
        McpController,
        A2aController,
        HealthController,
        LogStreamController,
        ProvenanceController,
        TlogController,
        OperatorController,
        OpsController,
        WorkbenchController,
        AguiController,
      ],
      providers: [
        { provide: GATEWAY, useValue: context },
        { provide: OPS, useValue: ops },
        ReadAccessGuard,
        OperatorGuard,
        { provide: WorkbenchLogins, useValue: new WorkbenchLogins(context.workbenchKey) },
        WorkbenchController,
      ],
    };
  }
}
