import { Inject, Injectable } from '@nestjs/common';
import { RPC, serviceLogger, type RpcClient } from '@world/runtime';
import { SessionsRepository } from './sessions.repository.js';

const log = serviceLogger('broker');

/**
 * `broker.session.revoke`: marks the session revoked (its next resolution is `revoked`, and
 * executes under it are refused) and broadcasts `broker.session.revoked` so gateways drop
 * cached resolutions (DESIGN.md §2). An unknown id answers revoked:false and emits nothing.
 */
@Injectable()
export class RevokeSession {
  constructor(
    private readonly sessions: SessionsRepository,
    @Inject(RPC) private readonly rpc: RpcClient,
  ) {}

  /** @param now epoch ms of the revocation */
  async execute(credentialId: string, now: number): Promise<{ revoked: boolean }> {
    const revoked = await this.sessions.revoke(credentialId, now);
    if (revoked) {
      this.rpc.emit('broker.session.revoked', { credentialId });
      log.info({ credentialId }, 'session revoked');
    }
    return { revoked };
  }
}
