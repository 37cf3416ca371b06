import { EPISODE_LEASE_RENEW_MS, EPISODE_LEASE_TTL_MS, LeaseLostError } from '@world/contracts';
import { renewEvery, serviceLogger, type Renewal, type RpcClient } from '@world/runtime';
import { BOOKKEEPING_TIMEOUT_MS } from './claim-invocation.js';
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
 * Renews the episode lease the broker took in tx1 (EPISODE_LEASE_TTL_MS) through
 * `broker.episode.renew` every EPISODE_LEASE_RENEW_MS, from the execute reply until the call's
 * release: the episode stays serialized through finish and commit, and its lease lapses within
 * the ttl when this process dies (DESIGN.md §2 "Per-episode serialization"). A lost lease
 * (LeaseLostError: it lapsed and another call took it) ends the renewals; the effect already ran
 * and its commit goes on. Other failures are logged and retried at the next interval.
 */
export function keepEpisodeLease(rpc: RpcClient, lease: HeldLease): Renewal {
  const { episodeId, holder, fence, invocationId } = lease;
  return renewEvery(
    EPISODE_LEASE_RENEW_MS,
    async () => {
      await rpc.request(
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
 * Releases a call's episode lease (`broker.episode.release`), retried on "no responders" and
 * transport timeouts until the lease would have lapsed anyway (EPISODE_LEASE_TTL_MS): a release
 * that went to a dying broker no longer stalls its episode until the lease expires (issue 14
 * fault 1). Idempotent by holder and fence: a resend of a release that landed answers
 * released:false and changes nothing. Never throws: a release that fails is logged (the lease
 * expires by itself).
 */
export async function releaseEpisodeLease(
  rpc: RpcClient,
  lease: { episodeId: string; holder: string; fence: number },
  invocationId: string,
): Promise<void> {
  try {
    await retryWithin(Date.now() + EPISODE_LEASE_TTL_MS, BOOKKEEPING_TIMEOUT_MS, (timeoutMs) =>
      rpc.request('broker.episode.release', lease, { timeoutMs }),
    );
  } catch (err) {
    log.warn({ err, invocationId }, 'lease release failed; it will expire');
  }
}
