import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DATABASE, serviceLogger, type DatabaseHandle } from '@world/runtime';
import { LEASE_CHANNEL } from './episodes.repository.js';

const log = serviceLogger('broker');

/** A subscription to one episode's release signals; a signal that arrives between waits is kept. */
export interface ReleaseSubscription {
  /** Resolves on the next release signal (or one already received), or after `ms`. */
  wait(ms: number): Promise<void>;
  close(): void;
}

interface Waiter {
  signalled: boolean;
  resolve: (() => void) | undefined;
}

/**
 * Wakes lease waiters (DESIGN.md §2): a release on this replica wakes a local waiter at once;
 * releases on other replicas arrive through Postgres LISTEN/NOTIFY; callers also poll slowly
 * as a fallback (a lost notification only delays a waiter). Each release signal wakes one
 * waiter, the longest waiting (FIFO), instead of the whole queue; a waiter that leaves with an
 * unconsumed signal passes it on. When the LISTEN connection listens again after it failed (the
 * server restarted), the hooks given to `whenRestored` run, then each episode's longest waiter
 * is woken: the notifications sent meanwhile were lost.
 */
@Injectable()
export class LeaseSignals implements OnModuleInit, OnModuleDestroy {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly restoredHooks: (() => Promise<unknown>)[] = [];
  private unlisten: (() => Promise<void>) | undefined;

  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async onModuleInit(): Promise<void> {
    this.unlisten = await this.database.listen(
      LEASE_CHANNEL,
      (episodeId) => this.wake(episodeId),
      () => void this.restored(),
    );
  }

  /** Runs `hook` each time the LISTEN connection listens again after it failed. */
  whenRestored(hook: () => Promise<unknown>): void {
    this.restoredHooks.push(hook);
  }

  private async restored(): Promise<void> {
    for (const hook of this.restoredHooks) {
      await hook().catch((err: unknown) => log.warn({ err }, 'lease restore hook failed'));
    }
    for (const episodeId of [...this.queues.keys()]) this.wake(episodeId);
  }

  async onModuleDestroy(): Promise<void> {
    const off = this.unlisten;
    this.unlisten = undefined;
    await off?.().catch((err: unknown) => log.warn({ err }, 'unlisten failed'));
  }

  /** Signals the longest-waiting local waiter of an episode that has no signal pending. */
  wake(episodeId: string): void {
    const waiter = this.queues.get(episodeId)?.find((w) => !w.signalled);
    if (waiter === undefined) return;
    waiter.signalled = true;
    waiter.resolve?.();
  }

  /** Subscribes before the caller's first attempt, so no release is missed in between. */
  subscribe(episodeId: string): ReleaseSubscription {
    const waiter: Waiter = { signalled: false, resolve: undefined };
    const queue = this.queues.get(episodeId) ?? [];
    queue.push(waiter);
    this.queues.set(episodeId, queue);
    return {
      wait: (ms) =>
        new Promise<void>((resolve) => {
          if (waiter.signalled) {
            waiter.signalled = false;
            resolve();
            return;
          }
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            waiter.resolve = undefined;
            waiter.signalled = false;
            resolve();
          }
          waiter.resolve = done;
        }),
      close: () => {
        const current = this.queues.get(episodeId) ?? [];
        const rest = current.filter((w) => w !== waiter);
        if (rest.length === 0) this.queues.delete(episodeId);
        else this.queues.set(episodeId, rest);
        waiter.resolve?.();
        if (waiter.signalled) this.wake(episodeId);
      },
    };
  }
}
