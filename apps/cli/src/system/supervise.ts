import {
  UP_RESTART_BACKOFF_MAX_MS,
  UP_RESTART_BACKOFF_MIN_MS,
  UP_RESTART_STABLE_MS,
} from '@world/contracts';
import type { ServiceProcess } from './up.js';

/**
 * The back-off before the `n`-th restart in a row of one replica (n ≥ 1): UP_RESTART_BACKOFF_MIN_MS
 * doubled n − 1 times, at most UP_RESTART_BACKOFF_MAX_MS.
 * @throws RangeError when n is not a positive integer
 * @internal exported for supervise.spec.ts
 */
export function restartDelay(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`restart number must be ≥ 1, got ${n}`);
  return Math.min(UP_RESTART_BACKOFF_MAX_MS, UP_RESTART_BACKOFF_MIN_MS * 2 ** Math.min(n - 1, 30));
}

/** What a supervisor watches and restarts: `world up`'s processes and its respawn. */
export interface Supervised {
  processes: ServiceProcess[];
  respawn(replica: string): ServiceProcess;
}

/** Options of superviseReplicas (tests shorten the times). */
export interface SuperviseOptions {
  /** one line per exit and per restart (world up writes them to stderr) */
  log: (line: string) => void;
  /** the back-off before restart n in a row (default restartDelay) */
  delay?: (n: number) => number;
  /** how long a restarted replica must stay ready before its back-off starts over (ms) */
  stableMs?: number;
}

/** A running supervisor. */
export interface Supervisor {
  /** Stops restarting (before `world up` stops its processes): pending restarts are cancelled. */
  stop(): void;
}

/**
 * `world up`'s supervision: a replica whose process exits while `world up` runs (not stopped by
 * it) is logged — `world up: <replica> exited (code <c>, signal <s>); restarting it in <ms> ms
 * (restart <n>)` — and started again after a back-off (same replica name, gateway port and
 * environment; UpSystem.respawn), then logged again once ready — `world up: <replica> restarted
 * (pid <pid>)`. Restarts of one replica in a row back off (restartDelay); one that stays ready
 * for `stableMs` starts over from the shortest back-off. `--no-restart` runs without it.
 * @param system the started processes (watched as they are now and as they are respawned)
 */
export function superviseReplicas(system: Supervised, options: SuperviseOptions): Supervisor {
  const delay = options.delay ?? restartDelay;
  const stableMs = options.stableMs ?? UP_RESTART_STABLE_MS;
  const inARow = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, ms);
    timers.add(timer);
  };
  const watch = (p: ServiceProcess) => {
    void p.exited.then(({ code, signal }) => {
      if (stopped) return;
      const n = (inARow.get(p.replica) ?? 0) + 1;
      inARow.set(p.replica, n);
      const ms = delay(n);
      options.log(
        `world up: ${p.replica} exited (code ${code}, signal ${signal}); restarting it in ${ms} ms (restart ${n})`,
      );
      later(ms, () => {
        let fresh: ServiceProcess;
        try {
          fresh = system.respawn(p.replica);
        } catch (err) {
          options.log(`world up: ${p.replica} could not be restarted: ${(err as Error).message}`);
          return;
        }
        watch(fresh);
        fresh.ready.then(
          () => {
            if (stopped) return;
            options.log(`world up: ${p.replica} restarted (pid ${fresh.child.pid})`);
            later(stableMs, () => {
              if (fresh.child.exitCode === null && fresh.child.signalCode === null)
                inARow.delete(p.replica);
            });
          },
          () => undefined,
        );
      });
    });
  };
  for (const p of system.processes) watch(p);
  return {
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
