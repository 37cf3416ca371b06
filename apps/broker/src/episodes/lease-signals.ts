import { EventEmitter } from 'node:events';
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

/**
 * Wakes lease waiters (DESIGN.md §2): releases on this replica wake local waiters at once;
 * releases on other replicas arrive through Postgres LISTEN/NOTIFY; callers also poll slowly
 * as a fallback (a lost notification only delays a waiter).
 */
@Injectable()
export class LeaseSignals implements OnModuleInit, OnModuleDestroy {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private unlisten: (() => Promise<void>) | undefined;

  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async onModuleInit(): Promise<void> {
    this.unlisten = await this.database.listen(LEASE_CHANNEL, (episodeId) => this.wake(episodeId));
  }

  async onModuleDestroy(): Promise<void> {
    const off = this.unlisten;
    this.unlisten = undefined;
    await off?.().catch((err: unknown) => log.warn({ err }, 'unlisten failed'));
  }

  /** Signals every local waiter of an episode. */
  wake(episodeId: string): void {
    this.emitter.emit(episodeId);
  }

  /** Subscribes before the caller's first attempt, so no release is missed in between. */
  subscribe(episodeId: string): ReleaseSubscription {
    let signalled = false;
    let resolveWait: (() => void) | undefined;
    const onSignal = () => {
      signalled = true;
      resolveWait?.();
    };
    this.emitter.on(episodeId, onSignal);
    return {
      wait: (ms) =>
        new Promise<void>((resolve) => {
          if (signalled) {
            signalled = false;
            resolve();
            return;
          }
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            resolveWait = undefined;
            signalled = false;
            resolve();
          }
          resolveWait = done;
        }),
      close: () => {
        this.emitter.off(episodeId, onSignal);
        resolveWait?.();
      },
    };
  }
}
