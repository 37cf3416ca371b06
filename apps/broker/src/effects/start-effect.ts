import { Inject, Injectable } from '@nestjs/common';
import { BadRequestError, DeadlineExceededError, type ParsedRequestOf } from '@world/contracts';
import { REPLICA, observePhase, startMark } from '@world/runtime';
import type { EpisodeView } from '../episodes/episodes.repository.js';
import { EpisodeLease } from '../episodes/lease.js';
import type { Authorization } from './authorize.js';
import { EffectsRepository, type BeginResult } from './effects.repository.js';
import type { SpendMap } from './spend-key.js';

type ExecuteRequest = ParsedRequestOf<'broker.effect.execute'>;

/** The lease a call asks tx1 to take: holder name, ttl and how long it may wait (ms). */
export type AcquireArgs = NonNullable<ExecuteRequest['acquire']>;

/** How a call holds its episode: the fence of a lease it holds, or a lease for tx1 to take. */
export type LeaseHold = { fence: number } | { acquire: AcquireArgs };

/**
 * The lease hold of an execute request: exactly one of `fence` and `acquire` (world-internals
 * §5.2; the contract's "a lease to take in the same transaction"). A lease to take is waited
 * for no longer than the request's `startBy` leaves: its caller stops waiting then.
 * @param now epoch ms, when the request is read
 * @throws BadRequestError when neither or both are given; DeadlineExceededError when `startBy`
 *   has already passed (a request read late: nothing read or written, and nothing runs)
 */
export function leaseHoldOf(request: ExecuteRequest, now: number): LeaseHold {
  if (request.startBy !== undefined && now >= request.startBy)
    throw new DeadlineExceededError(
      'broker.effect.execute was read after its caller stopped waiting; the effect did not run',
    );
  if (request.fence !== undefined && request.acquire === undefined) return { fence: request.fence };
  if (request.fence === undefined && request.acquire !== undefined) {
    const left = request.startBy === undefined ? Infinity : request.startBy - now;
    return { acquire: { ...request.acquire, waitMs: Math.min(request.acquire.waitMs, left) } };
  }
  throw new BadRequestError('broker.effect.execute: exactly one of fence and acquire is required');
}

/** The ways tx1 can run (world-internals §5.2; DESIGN.md §2 "Per-episode serialization"). */
export type StartWay =
  /** the caller holds the lease: lock the row, check the fence, write (EffectsRepository.begin) */
  | { way: 'fenced'; fence: number }
  /**
   * take the lease in tx1 and write; `freeAt` is the fence the execute path's read found the
   * lease free at (null when it was held): then the one-statement way is tried first
   * (EffectsRepository.beginFree), falling back to the locking way, which waits for a held lease
   */
  | { way: 'take'; acquire: AcquireArgs; freeAt: number | null };

/**
 * The one chooser of tx1's way: the caller's fence; else take the lease — in one statement when
 * the read found it free, else (or when that statement finds it moved) under the row lock,
 * waiting while another live call holds it. Every way writes the same rows for the same
 * decision (the test `tx1 ways` pins it); they differ only in round trips.
 */
export function chooseStart(hold: LeaseHold, episode: EpisodeView): StartWay {
  if ('fence' in hold) return { way: 'fenced', fence: hold.fence };
  return {
    way: 'take',
    acquire: hold.acquire,
    freeAt: episode.leaseHolder === null ? episode.leaseFence : null,
  };
}

/** What every way of tx1 is given: the episode and the pure authorize step to run on a spend. */
export interface StartJob {
  episodeId: string;
  /** the invocation the effect belongs to (asked about when its call waited for the lease) */
  invocationId: string;
  /** the execute path's read of the episode's spend (what the one-statement way decides on) */
  spentAtRead: SpendMap;
  authorize: (spent: SpendMap) => Authorization;
}

/**
 * What tx1 wrote, under which fence; a way that took the lease also says until when it holds it
 * (epoch ms on this process's clock: the `now` of the attempt that took it plus the ttl, the
 * expiry tx1 wrote). A fenced start leaves the caller's lease to the caller.
 */
export type Started = BeginResult<Authorization> & { leaseUntil?: number };

/**
 * tx1 of `broker.effect.execute` by the way `chooseStart` picked (world-internals §5.2). Each way
 * decides with the same authorize step and writes through the same statement builders
 * (EffectsRepository); the lease phase (`world_phase_seconds{phase="lease"}`) is timed from the
 * start of the way to the moment tx1 holds the lease and decides.
 */
@Injectable()
export class StartEffect {
  constructor(
    private readonly effects: EffectsRepository,
    private readonly lease: EpisodeLease,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  /**
   * @throws LeaseLostError (fenced: the fence is stale), DeadlineExceededError (take: the lease
   *   stayed held for waitMs), NoHandlerError (take: no episode row); nothing written
   */
  async start(way: StartWay, job: StartJob): Promise<Started> {
    if (way.way === 'fenced') return this.fenced(way.fence, job);
    if (way.freeAt !== null) {
      const begun = await this.free(way.acquire, way.freeAt, job);
      if (begun !== null) return begun;
    }
    return this.locking(way.acquire, job);
  }

  /** The caller's fence, checked under the row lock. */
  private fenced(fence: number, job: StartJob): Promise<Started> {
    return this.effects.begin(job.episodeId, { fence }, job.authorize);
  }

  /**
   * The one-statement way: decided on the read's spend; only an allowed start is written this
   * way (a denial takes the locking way). @returns null when it wrote nothing
   */
  private async free(acquire: AcquireArgs, freeAt: number, job: StartJob): Promise<Started | null> {
    const mark = startMark();
    const decided = job.authorize(job.spentAtRead);
    if (decided.kind !== 'allowed') return null;
    const now = Date.now();
    const begun = await this.effects.beginFree(
      job.episodeId,
      { holder: acquire.holder, ttlMs: acquire.ttlMs, now, freeFence: freeAt },
      decided,
    );
    if (begun === null) return null;
    observePhase(this.replica, 'lease', mark);
    return { ...begun, leaseUntil: now + acquire.ttlMs };
  }

  /** The locking way: the lease taken in tx1 under the row lock, waiting while it is held. */
  private async locking(acquire: AcquireArgs, job: StartJob): Promise<Started> {
    const { holder, ttlMs, waitMs, caller } = acquire;
    const mark = startMark();
    let timed = false;
    const leaseHeld = () => {
      if (timed) return;
      timed = true;
      observePhase(this.replica, 'lease', mark);
    };
    // The `now` of the attempt that took the lease: the one that returned last.
    let takenAt = 0;
    try {
      const begun = await this.lease.acquireVia(
        { episodeId: job.episodeId, waitMs, caller, invocationId: job.invocationId },
        (now) => {
          takenAt = now;
          return this.effects.begin(job.episodeId, { acquire: { holder, ttlMs, now } }, (spent) => {
            leaseHeld();
            return job.authorize(spent);
          });
        },
      );
      return { ...begun, leaseUntil: takenAt + ttlMs };
    } finally {
      leaseHeld();
    }
  }
}
