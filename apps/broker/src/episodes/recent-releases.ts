import { Injectable } from '@nestjs/common';
import { EPISODE_LEASE_TTL_MS } from '@world/contracts';
import { serviceLogger } from '@world/runtime';
import { EpisodesRepository } from './episodes.repository.js';
import { LeaseSignals } from './lease-signals.js';

const log = serviceLogger('broker');

/** One lease release: the episode and the holder+fence that gave the lease up. */
export interface Release {
  episodeId: string;
  holder: string;
  fence: number;
}

/**
 * The lease releases this replica ran in the last EPISODE_LEASE_TTL_MS, run again each time
 * the database connection comes back after it failed (LeaseSignals.whenRestored).
 *
 * Why: a release commits asynchronously (EpisodesRepository.release), so a PostgreSQL server
 * that crashes within a WAL writer round of it (`world start`'s own server SIGKILLed, restarted
 * by World) recovers the lease as still held by the call that gave it up, and the episode's
 * next calls would wait for its expiry; a release sent while the server was down failed
 * outright, with the same result. Running it again is safe whatever happened meanwhile: it
 * frees the lease only while the same holder+fence still holds it (a call that took the lease
 * since bumped the fence) and never touches the fence, so fencing is unchanged (DESIGN.md §2).
 * After EPISODE_LEASE_TTL_MS the lease a release freed has expired anyway (its last renewal
 * came before the release), so nothing older is kept: the set stays bounded by the releases of
 * one ttl.
 */
@Injectable()
export class RecentReleases {
  /** by `episode holder fence`, with the time (epoch ms) it was released or failed to be */
  private readonly recent = new Map<string, Release & { at: number }>();

  constructor(
    private readonly episodes: EpisodesRepository,
    private readonly signals: LeaseSignals,
  ) {
    signals.whenRestored(() => this.redo(Date.now()));
  }

  /**
   * Keeps a release that committed, or that failed (it may not have reached the server), to be
   * run again after the next reconnection. @param now epoch ms
   */
  track(release: Release, now: number): void {
    this.prune(now);
    const { episodeId, holder, fence } = release;
    const key = `${episodeId} ${holder} ${fence}`;
    this.recent.delete(key); // to the end of the insertion order, which prune relies on
    this.recent.set(key, { episodeId, holder, fence, at: now });
  }

  /**
   * Runs every kept release again, in the order they were made; a lease one frees wakes its
   * local waiter. Entries stay kept (a second crash loses this run's commits too) until they
   * age out. A failure stops the run: the database is down again, and its return runs all again.
   * @returns how many leases were still held so and are freed now
   */
  async redo(now: number): Promise<number> {
    this.prune(now);
    let freed = 0;
    for (const r of [...this.recent.values()]) {
      try {
        if (!(await this.episodes.release(r.episodeId, r.holder, r.fence))) continue;
      } catch (err) {
        log.warn({ err }, 'lease releases not run again: the database failed meanwhile');
        return freed;
      }
      freed++;
      log.warn(
        { episodeId: r.episodeId, fence: r.fence },
        'a lease release lost with the database connection was run again',
      );
      this.signals.wake(r.episodeId);
    }
    return freed;
  }

  private prune(now: number): void {
    for (const [key, r] of this.recent) {
      // Map order is insertion order: the oldest come first.
      if (now - r.at < EPISODE_LEASE_TTL_MS) break;
      this.recent.delete(key);
    }
  }
}
