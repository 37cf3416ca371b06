import { CREDENTIAL_LOOKUP_MS } from '@world/contracts';
import { Module, type DynamicModule } from '@nestjs/common';
import { RPC, type RpcClient } from '@world/runtime';
import { A2aController } from './a2a/a2a.controller.js';
import { A2aEndpoint } from './a2a/a2a-endpoint.js';
import { InvokeSkill } from './a2a/invoke-skill.js';
import { ToolSurface } from './a2a/tool-surface.js';
import { Authenticator } from './auth/authenticator.js';
import { OperatorGuard, ReadAccessGuard } from './auth/guards.js';
import { SessionResolver } from './auth/session-resolver.js';
import { GATEWAY_LOG, GATEWAY_SETTINGS, type GatewaySettings } from './gateway.tokens.js';
import { HealthController } from './health/health.controller.js';
import { ReadHealth } from './health/read-health.js';
import type { LogSink } from './log.js';
import { McpController } from './mcp/mcp.controller.js';
import { McpEndpoint } from './mcp/mcp-endpoint.js';
import { OpsController } from './ops/ops.controller.js';
import { OPS, type OpsContext } from './ops/ops.tokens.js';
import { CreateEpisode } from './operator/create-episode.js';
import { OperatorController } from './operator/operator.controller.js';
import { ListSessions, MintSession, RevokeSession } from './operator/sessions.js';
import { CommitWorld } from './provenance/commit-world.js';
import { LogStreamController } from './provenance/log-stream.controller.js';
import { ProvenanceController } from './provenance/provenance.controller.js';
import { ReadLog } from './provenance/read-log.js';
import { ReadObjects } from './provenance/read-objects.js';
import { ReadReceipt } from './provenance/read-receipt.js';
import { ReadTlog } from './provenance/read-tlog.js';
import { ReadWorlds } from './provenance/read-worlds.js';
import { TlogController } from './provenance/tlog.controller.js';
import { WorkbenchLogins } from './workbench/access.js';
import { AguiController } from './workbench/agui.controller.js';
import { ReplicaSurvey } from './workbench/replica-survey.js';
import { WorkbenchController } from './workbench/workbench.controller.js';

/** What the gateway module is wired with (all resolved by startGateway). */
export interface GatewayModuleOptions {
  /** the gateway's one connection to the planner, broker and ledger */
  rpc: RpcClient;
  log: LogSink;
  settings: GatewaySettings;
  /** bearer tokens → sessions (cached ≤ 1 s); startGateway closes it */
  sessions: SessionResolver;
  auth: Authenticator;
  /** the MCP endpoint; startGateway closes it */
  mcp: McpEndpoint;
  /** the key sealing workbench tickets and logins, shared by every replica (OperatorCredential) */
  workbenchKey: Buffer;
  /** the readiness checks of /readyz (default none: embedded mode has no connection) */
  ops?: OpsContext;
  /** the background replica survey the Overview renders from; startGateway starts and stops it */
  survey: ReplicaSurvey;
}

/** The gateway's HTTP routes; wiring only. */
@Module({})
export class GatewayModule {
  static register(options: GatewayModuleOptions): DynamicModule {
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
        { provide: RPC, useValue: options.rpc },
        { provide: GATEWAY_LOG, useValue: options.log },
        { provide: GATEWAY_SETTINGS, useValue: options.settings },
        { provide: OPS, useValue: options.ops ?? { checks: {} } },
        { provide: SessionResolver, useValue: options.sessions },
        { provide: Authenticator, useValue: options.auth },
        { provide: McpEndpoint, useValue: options.mcp },
        {
          provide: WorkbenchLogins,
          useValue: new WorkbenchLogins(options.workbenchKey, async (nonce, expiresAt) => {
            const reply = await options.rpc.request(
              'broker.workbench.ticket.consume',
              { nonce, expiresAt },
              { timeoutMs: CREDENTIAL_LOOKUP_MS },
            );
            return reply.consumed;
          }),
        },
        { provide: ReplicaSurvey, useValue: options.survey },
        ReadAccessGuard,
        OperatorGuard,
        ToolSurface,
        InvokeSkill,
        A2aEndpoint,
        ReadHealth,
        ReadWorlds,
        ReadLog,
        ReadObjects,
        ReadReceipt,
        ReadTlog,
        CommitWorld,
        CreateEpisode,
        MintSession,
        ListSessions,
        RevokeSession,
        WorkbenchController,
      ],
    };
  }
}
