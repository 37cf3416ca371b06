import { Inject, Injectable } from '@nestjs/common';
import { EPISODE_LEASE_TTL_MS, PAGE_MAX, REPLY_GRACE_MS } from '@world/contracts';
import { REPLICA, RPC, serviceLogger, type RpcClient } from '@world/runtime';
import { BROKER_SETTINGS, type BrokerSettings } from '../settings.js';
import { EffectsRepository } from './effects.repository.js';

const log = serviceLogger('broker');

/** How often a running broker replica looks for orphaned intents (world-internals §5.5). */
export const ORPHAN_SWEEP_MS = 10_000;

/** An intent whose outcome was never written: the effect may have run. */
export interface IndeterminateIntent {
  invocationId: string;
  episodeId: string;
  ordinal: number;
  effect: string;
  scope: string;
}

/**
 * The longest a live call can keep an intent without its outcome: the call's deadline, the
 * planner's grace for its answer, and one lease term (the broker renews the lease until its
 * reply). An intent older than this has no live replica behind it.
 */
export function longestCallMs(callDeadlineMs: number): number {
  return callDeadlineMs + REPLY_GRACE_MS + EPISODE_LEASE_TTL_MS;
}

/**
 * Recovery reports (world-internals §5.5, incident 3): every intent without an outcome that no
 * live replica can still finish (EffectsRepository.orphaned) is reported as indeterminate — one
 * log line each and `broker.recovery` events (at most PAGE_MAX items each) — and is never re-run
 * and never given an outcome (fail closed). At start (execute) and then periodically (sweep), so
 * an orphan left by a replica that died is reported without any broker restarting; a live
 * call's intent — its lease held, it the episode's latest — is never named (world-internals §5.5).
 * Each replica names an intent once.
 */
@Injectable()
export class RecoverIntents {
  /** `episode:ordinal` of the intents this replica has reported */
  private readonly reported = new Set<string>();

  constructor(
    private readonly effects: EffectsRepository,
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(REPLICA) private readonly replica: string,
    @Inject(BROKER_SETTINGS) private readonly settings: BrokerSettings,
  ) {}

  /** The start-up report: every orphaned intent. */
  async execute(): Promise<IndeterminateIntent[]> {
    return this.sweep();
  }

  /**
   * Reports the orphaned intents this replica has not reported yet.
   * @returns the intents reported now
   */
  async sweep(): Promise<IndeterminateIntent[]> {
    const found = await this.effects.orphaned(
      Date.now(),
      longestCallMs(this.settings.callDeadlineMs),
    );
    const items = found
      .filter((i) => !this.reported.has(`${i.episodeId}:${i.ordinal}`))
      .map(({ invocationId, episodeId, ordinal, effect, scope }) => ({
        invocationId,
        episodeId,
        ordinal,
        effect,
        scope,
      }));
    for (const item of items) {
      this.reported.add(`${item.episodeId}:${item.ordinal}`);
      log.warn(
        { ...item, replica: this.replica },
        'indeterminate effect intent: it may have run; it is not re-run',
      );
    }
    for (let i = 0; i < items.length; i += PAGE_MAX) {
      this.rpc.emit('broker.recovery', {
        replica: this.replica,
        items: items.slice(i, i + PAGE_MAX),
      });
    }
    return items;
  }
}
