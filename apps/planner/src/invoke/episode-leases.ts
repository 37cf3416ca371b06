import { Inject, Injectable } from '@nestjs/common';
import { EPISODE_LEASE_RENEW_MS, EPISODE_LEASE_TTL_MS, LeaseLostError } from '@world/contracts';
import {
  InFlight,
  RPC,
  renewEvery,
  serviceLogger,
  type Renewal,
  type RpcClient,
} from '@world/runtime';
import { PLANNER_BACKGROUND } from '../settings.js';
import { BOOKKEEPING_TIMEOUT_MS } from './invocation-claims.js';
import { retryWithin } from './retry-within.js';

const log = serviceLogger('planner');

/** The lease a call holds: the episode, its holder name and fencing token, and the invocation. */
export interface HeldLease {
  episodeId: string;
  holder: string;
  fence: number;
  invocationId: string;
}

/**
 * The episode lease the broker took for a call in tx1, from the execute reply to the call's end:
 * renewed while the call finishes and commits, released when it answers (DESIGN.md §2
 * "Per-episode serialization").
 */
@Injectable()
export class EpisodeLeases {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(PLANNER_BACKGROUND) private readonly background: InFlight,
  ) {}

  /**
   * Renews the lease (EPISODE_LEASE_TTL_MS) through `broker.episode.renew` every
   * EPISODE_LEASE_RENEW_MS: the episode stays serialized through finish and commit, and the lease
   * lapses within the ttl when this process dies. A lost lease (LeaseLostError: it lapsed and
   * another call took it) ends the renewals; the effect already ran and its commit goes on. Other
   * failures are logged and retried at the next interval.
   */
  keep(lease: HeldLease): Renewal {
    const { episodeId, holder, fence, invocationId } = lease;
    return renewEvery(
      EPISODE_LEASE_RENEW_MS,
      async () => {
        await this.rpc.request(
          'broker.episode.renew',
          { episodeId, holder, fence, ttlMs: EPISODE_LEASE_TTL_MS },
          { timeoutMs: EPISODE_LEASE_RENEW_MS },
        );
      },
      (err) => {
        log.warn({ err, invocationId }, 'lease renewal failed');
        return err instanceof LeaseLostError ? 'stop' : 'continue';
      },
    );
  }

  /**
   * Releases the lease (`broker.episode.release`) without the call waiting for it (DESIGN.md
   * §2), but counted in the planner's background work, which a shutdown waits for. Retried on
   * "no responders" and transport timeouts until the lease would have lapsed anyway
   * (EPISODE_LEASE_TTL_MS), so a release sent to a dying broker does not stall its episode until
   * the lease expires. Idempotent by holder and fence: a resend of a release that landed answers
   * released:false and changes nothing. A release that fails is logged (the lease expires by
   * itself).
   */
  release(lease: HeldLease): void {
    void this.background.track(this.releaseNow(lease));
  }

  private async releaseNow(lease: HeldLease): Promise<void> {
    const { invocationId, ...held } = lease;
    try {
      await retryWithin(Date.now() + EPISODE_LEASE_TTL_MS, BOOKKEEPING_TIMEOUT_MS, (timeoutMs) =>
        this.rpc.request('broker.episode.release', held, { timeoutMs }),
      );
    } catch (err) {
      log.warn({ err, invocationId }, 'lease release failed; it will expire');
    }
  }
}
