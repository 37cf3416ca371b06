import { SHUTDOWN_DRAIN_MS } from '@world/contracts';
import { runMain } from './config.js';
import { serviceLogger } from './logger.js';
import {
  closeOnSignal,
  startHealthFromEnv,
  type HealthEnv,
  type RunningService,
} from './service.js';
import { startTelemetry } from './telemetry.js';

/** What a service's process start hands to serveProcess. */
export interface ServedProcess {
  /** the started replica */
  running: RunningService;
  /** the process's health settings (WORLD_HEALTH_PORT, WORLD_HEALTH_HOST) */
  healthEnv: HealthEnv;
  /** fields of the `ready` line between `replica` and `healthPort` (the gateway's url) */
  readyFields?: Record<string, unknown>;
  /** what the process owns beyond the replica (its database), closed after the replica */
  onClosed?: () => Promise<void>;
}

/**
 * The distributed process shape of every service (DESIGN.md §5), in one place: OpenTelemetry
 * export (service `world-<service>`, README "Traces"), then `start` (config from the
 * environment: a ConfigError exits 2; connections; the replica), then the health port when
 * WORLD_HEALTH_PORT is set, one `ready` line `{replica, …readyFields, healthPort}`, and a drain
 * of SHUTDOWN_DRAIN_MS on SIGTERM/SIGINT (closeOnSignal). When the health port cannot listen the
 * replica and onClosed are closed before the process exits 1 (runMain).
 * @param service the service name: the logger's `service` and the telemetry scope
 * @param start builds the replica; it closes what it opened itself when it throws
 */
export function serveProcess(service: string, start: () => Promise<ServedProcess>): void {
  runMain(async () => {
    startTelemetry(service, `world-${service}`);
    const { running, healthEnv, readyFields, onClosed } = await start();
    const health = await startHealthFromEnv(healthEnv, running.checks).catch(
      async (err: unknown) => {
        await running.close();
        await onClosed?.();
        throw err;
      },
    );
    serviceLogger(service).info(
      { replica: running.replica, ...readyFields, healthPort: health?.port },
      'ready',
    );
    closeOnSignal([running], SHUTDOWN_DRAIN_MS, onClosed, health);
  });
}
