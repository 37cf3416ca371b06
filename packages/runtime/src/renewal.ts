import { serviceLogger } from './logger.js';

const log = serviceLogger('renewal');

/** What a renewal loop is told after each attempt: go on, or stop (the thing renewed is gone). */
export type RenewalVerdict = 'continue' | 'stop';

/** A running renewal loop. */
export interface Renewal {
  /** Ends the loop; resolves once a renewal in progress has settled. */
  stop(): Promise<void>;
}

/**
 * Renews something every `intervalMs` until stop(): the episode lease a call holds while it
 * runs (DESIGN.md §2; EPISODE_LEASE_TTL_MS). Renewals never overlap: the next is scheduled
 * when the previous settles. A renewal that throws goes to `onError`, whose verdict says
 * whether to go on; an onError that throws stops the loop (logged).
 * @param intervalMs time between the end of one renewal and the start of the next (≥ 1)
 * @param renew one renewal
 * @param onError what to do when a renewal throws
 */
export function renewEvery(
  intervalMs: number,
  renew: () => Promise<void>,
  onError: (err: unknown) => RenewalVerdict,
): Renewal {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    timer = undefined;
    if (stopped) return;
    running = renew()
      .then(() => 'continue' as RenewalVerdict)
      .catch((err: unknown) => {
        try {
          return onError(err);
        } catch (thrown) {
          log.error({ err: thrown }, 'renewal error handler failed; renewals stop');
          return 'stop' as RenewalVerdict;
        }
      })
      .then((verdict) => {
        if (verdict === 'continue' && !stopped) schedule();
        else stopped = true;
      });
  };
  const schedule = () => {
    timer = setTimeout(tick, Math.max(1, intervalMs));
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
