import { Inject, Injectable } from '@nestjs/common';
import {
  DeadlineExceededError,
  EPISODE_LEASE_RENEW_MS,
  LEASE_POLL_MS,
  LeaseLostError,
  type ParsedRequestOf,
} from '@world/contracts';
import {
  REPLICA,
  elapsedSeconds,
  renewEvery,
  serviceLogger,
  startMark,
  worldMetrics,
  type Renewal,
} from '@world/runtime';
import { CallerLiveness } from './caller-liveness.js';
import { EpisodesRepository, type LeaseGrant } from './episodes.repository.js';
import { LeaseSignals } from './lease-signals.js';
import { RecentReleases } from './recent-releases.js';

const log = serviceLogger('broker');

/** What `acquire` needs: the episode, a holder name, the lease ttl and how long to wait (ms). */
export type AcquireInput = ParsedRequestOf<'broker.episode.acquire'>;

/**
 * The per-episode lease with a fencing token (DESIGN.md §2 "Per-episode serialization";
 * world-spec §2.10). A lease is taken when free or expired (fence += 1, tookOver when it
 * replaced an expired holder); otherwise the caller waits up to waitMs — woken by local
 * releases, by NOTIFY from other replicas, at the holder's expiry, and by a slow poll — then
 * gets DeadlineExceededError. A request that had to wait and names its planner instance
 * (`caller`) is granted the lease only while that instance answers (CallerLiveness): one whose
 * planner is gone is dropped with CallerGoneError before anything is written, instead of taking
 * the lapsed lease for a caller that cannot use it. Only holder+fence may renew or release. The row lock makes two
 * holders impossible: every take-over increments the fence, so an old fence is stale.
 * Counts in `world_lease_waits_total` / `world_lease_wait_seconds` the acquisitions that found
 * the lease held, and in `world_lease_takeovers_total` those that replaced an expired holder.
 */
@Injectable()
export class EpisodeLease {
  constructor(
    private readonly episodes: EpisodesRepository,
    private readonly signals: LeaseSignals,
    private readonly callers: CallerLiveness,
    private readonly releases: RecentReleases,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  /** @throws DeadlineExceededError when the lease stays held for waitMs */
  async acquire(input: AcquireInput): Promise<LeaseGrant> {
    return this.acquireVia(input, (now) =>
      this.episodes.tryAcquire(input.episodeId, input.holder, input.ttlMs, now),
    );
  }

  /**
   * The waiting loop of `acquire` around any attempt to take the lease: `attempt(now)` either
   * took it (returns a grant-like result whose tookOver is counted) or found it held (returns the
   * holder's expiry, having written nothing). `broker.effect.execute` passes its tx1, so the
   * lease is taken in the same transaction as the effect's start (one round trip and one commit
   * fewer). Waits, wake-ups, deadline and metrics are those of `acquire`; after each wait, a
   * request naming its `caller` asks that planner instance whether it is still there — and,
   * for an effect's tx1, whether the invocation's client cancelled it — before it attempts again.
   * @throws DeadlineExceededError when the lease stays held for waitMs; CallerGoneError when the
   *   caller did not answer after a wait, CallCancelledError when it said the invocation was
   *   cancelled (nothing written either way); whatever attempt throws
   */
  async acquireVia<T extends { tookOver: boolean }>(
    input: Pick<AcquireInput, 'episodeId' | 'waitMs' | 'caller'> & { invocationId?: string },
    attempt: (now: number) => Promise<T | { heldUntil: number }>,
  ): Promise<T> {
    const deadline = Date.now() + input.waitMs;
    const subscription = this.signals.subscribe(input.episodeId);
    const metrics = worldMetrics();
    let waitedSince: bigint | undefined;
    try {
      while (true) {
        const now = Date.now();
        const result = await attempt(now);
        if (!isHeld(result)) {
          if (waitedSince !== undefined) {
            metrics.leaseWaitSeconds.observe(
              { replica: this.replica },
              elapsedSeconds(waitedSince),
            );
          }
          if (result.tookOver) metrics.leaseTakeovers.inc({ replica: this.replica });
          return result;
        }
        if (waitedSince === undefined) {
          waitedSince = startMark();
          metrics.leaseWaits.inc({ replica: this.replica });
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          metrics.leaseWaitSeconds.observe({ replica: this.replica }, elapsedSeconds(waitedSince));
          throw new DeadlineExceededError(
            `lease of episode "${input.episodeId}" is held by another call; waited ${input.waitMs} ms`,
          );
        }
        await subscription.wait(Math.min(left, LEASE_POLL_MS, result.heldUntil - now));
        if (input.caller !== undefined) {
          try {
            await this.callers.ensureAlive(input.caller, input.episodeId, input.invocationId);
          } catch (err) {
            metrics.leaseWaitSeconds.observe(
              { replica: this.replica },
              elapsedSeconds(waitedSince),
            );
            // The release that woke this waiter may have been meant for the next one: leaving
            // with a signal passes it on (close), so the next waiter tries at once.
            this.signals.wake(input.episodeId);
            throw err;
          }
        }
      }
    } finally {
      subscription.close();
    }
  }

  /** @throws LeaseLostError when holder+fence no longer hold the lease */
  async renew(input: ParsedRequestOf<'broker.episode.renew'>): Promise<{ expiresAt: number }> {
    const expiresAt = await this.episodes.renew(
      input.episodeId,
      input.holder,
      input.fence,
      input.ttlMs,
      Date.now(),
    );
    if (expiresAt === null) throw new LeaseLostError(input.episodeId, input.fence);
    return { expiresAt };
  }

  /**
   * Keeps a lease this replica's call holds: renews it to now + ttlMs every
   * EPISODE_LEASE_RENEW_MS (a third of ttlMs when that is shorter) until stop(), so the lease
   * outlives a live call however long its handler runs, and lapses within ttlMs of this process
   * dying (DESIGN.md §2; EPISODE_LEASE_TTL_MS). A renewal that finds the lease gone
   * (LeaseLostError: it lapsed and another call took it) calls `onLost` once and stops; any other
   * failure is logged and the next renewal tries again.
   * @param lease the episode, the holder and fence it holds, and the ttl it was taken with (ms)
   * @param onRenewed given each renewal's new expiry (epoch ms), e.g. LeaseTerm.extend
   */
  keep(
    lease: { episodeId: string; holder: string; fence: number; ttlMs: number },
    onLost: () => void,
    onRenewed: (expiresAt: number) => void = () => undefined,
  ): Renewal {
    const interval = Math.max(1, Math.min(EPISODE_LEASE_RENEW_MS, Math.floor(lease.ttlMs / 3)));
    return renewEvery(
      interval,
      async () => {
        onRenewed((await this.renew(lease)).expiresAt);
      },
      (err) => {
        if (err instanceof LeaseLostError) {
          log.error(
            { episodeId: lease.episodeId, fence: lease.fence },
            'episode lease lost while its effect ran',
          );
          onLost();
          return 'stop';
        }
        log.warn({ err, episodeId: lease.episodeId }, 'lease renewal failed; the next one retries');
        return 'continue';
      },
    );
  }

  /**
   * Frees the lease and wakes waiters. A release that freed it, or that failed, is kept to be run
   * again when the database connection comes back (RecentReleases: a server crash may have
   * dropped it, or it never reached the server).
   * @returns released:false when holder+fence did not hold it
   * @throws the database's error
   */
  async release(input: ParsedRequestOf<'broker.episode.release'>): Promise<{ released: boolean }> {
    const { episodeId, holder, fence } = input;
    let released: boolean;
    try {
      released = await this.episodes.release(episodeId, holder, fence);
    } catch (err) {
      this.releases.track({ episodeId, holder, fence }, Date.now());
      throw err;
    }
    if (released) {
      this.releases.track({ episodeId, holder, fence }, Date.now());
      this.signals.wake(episodeId);
    }
    return { released };
  }
}

function isHeld<T>(result: T | { heldUntil: number }): result is { heldUntil: number } {
  return typeof result === 'object' && result !== null && 'heldUntil' in result;
}
