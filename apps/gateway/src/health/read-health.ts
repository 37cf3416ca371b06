import { Inject, Injectable } from '@nestjs/common';
import { READ_DEADLINE_MS } from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import { DAEMON_VERSION } from '../identity.js';

/** GET /v1/health (world-spec §5.2). */
export interface HealthView {
  status: 'ok';
  daemon_version: string;
  db_path: string;
  interpreter_ref: string;
  interpreter_version: string;
}

/**
 * GET /v1/health: status, version and the interpreter pin every coordinator entry carries in
 * `header.interpreter`, read from `planner.info` (world-spec §5.2, §11 scenario 1). Always open.
 */
@Injectable()
export class ReadHealth {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /**
   * @returns the health view; `db_path` is the store location the operator configured (display only)
   * @throws the planner's unavailability (503) — a health answer without the pin would lie
   */
  async execute(): Promise<HealthView> {
    const info = await this.rpc.request('planner.info', {}, { timeoutMs: READ_DEADLINE_MS });
    return {
      status: 'ok',
      daemon_version: DAEMON_VERSION,
      db_path: this.settings.dbPath,
      interpreter_ref: info.interpreter,
      interpreter_version: info.interpreterVersion,
    };
  }
}
