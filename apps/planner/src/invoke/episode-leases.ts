import { Inject, Injectable } from '@nestjs/common';
import { EPISODE_LEASE_RENEW_MS, EPISODE_LEASE_TTL_MS, LeaseLostError } from '@world/contracts';
import { RPC, renewEvery, serviceLogger, type Renewal, type RpcClient } from '@world/runtime';

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
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

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
   * Releases the lease once the call answered (DESIGN.md §2): one `broker.episode.releaseAsync`
   * event to one broker replica, with no reply to wait for and no retry. Its loss (no broker
   * subscribed at that moment, or the broker died before running it) costs only time: the lease
   * lapses at its expiry (EPISODE_LEASE_TTL_MS after the last renewal), as it does when this
   * process dies holding it. The broker frees it by holder and fence, so a stale release changes
   * nothing. A shutdown drains the connection, which flushes the event.
   */
  release(lease: HeldLease): void {
    const { invocationId, ...held } = lease;
    try {
      this.rpc.emit('broker.episode.releaseAsync', held);
    } catch (err) {
      log.warn({ err, invocationId }, 'lease release failed; it will expire');
    }
  }
}
