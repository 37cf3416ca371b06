import { Inject, Injectable } from '@nestjs/common';
import {
  DeadlineExceededError,
  ProjectionDeadlineExceededError,
  ProjectionUnavailableError,
  READ_DEADLINE_MS,
  ServiceUnavailableError,
  TransportTimeoutError,
  type Session,
  type ToolDescriptor,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { GATEWAY_LOG, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import type { LogSink } from '../log.js';

/**
 * A session's tool surface as the A2A routes read it: `planner.tools.list` for its grants, read
 * fresh — the same function as MCP's tools/list and the planner's own admission (world-spec §6).
 */
@Injectable()
export class ToolSurface {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_LOG) private readonly log: LogSink,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /**
   * The skills of an agent card, with the §5.13 projection errors (the failure logged here).
   * @throws ProjectionDeadlineExceededError when the read ran out of time,
   *   ProjectionUnavailableError for any other failure
   */
  async ofCard(session: Session): Promise<ToolDescriptor[]> {
    try {
      return await this.list(session);
    } catch (err) {
      this.log.error({ err }, 'agent card: the registry read failed');
      if (err instanceof TransportTimeoutError || err instanceof DeadlineExceededError)
        throw new ProjectionDeadlineExceededError();
      throw new ProjectionUnavailableError();
    }
  }

  /**
   * A snapshot for a call or the SDK's card: any failure means it cannot be served.
   * @throws ServiceUnavailableError `the registry snapshot failed`, carrying the cause
   */
  async snapshot(session: Session): Promise<ToolDescriptor[]> {
    try {
      return await this.list(session);
    } catch (cause) {
      throw new ServiceUnavailableError('the registry snapshot failed', { cause });
    }
  }

  private async list(session: Session): Promise<ToolDescriptor[]> {
    const reply = await this.rpc.request(
      'planner.tools.list',
      { grants: session.grants, now: (this.settings.clock ?? Date.now)() },
      { timeoutMs: READ_DEADLINE_MS },
    );
    return reply.tools;
  }
}
