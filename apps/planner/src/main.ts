import { SHUTDOWN_DRAIN_MS } from '@world/contracts';
import {
  closeOnSignal,
  runMain,
  serviceLogger,
  startHealthFromEnv,
  startTelemetry,
} from '@world/runtime';
import { plannerConfig } from './config.js';
import { startPlanner } from './boot.js';

// The planner's distributed process (DESIGN.md §5): env → config (exit 2 when malformed) →
// NATS → health port (WORLD_HEALTH_PORT) → "ready"; SIGTERM drains the calls in flight.
runMain(async () => {
  // OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set (README "Traces").
  startTelemetry('planner', 'world-planner');
  const config = plannerConfig();
  const planner = await startPlanner({
    transport: { kind: 'nats', url: config.NATS_URL, prefix: config.WORLD_SUBJECT_PREFIX },
    replica: config.WORLD_REPLICA,
    callDeadlineMs: config.WORLD_CALL_DEADLINE_MS,
  });
  const health = await startHealthFromEnv(config, planner.checks).catch(async (err: unknown) => {
    await planner.close();
    throw err;
  });
  serviceLogger('planner').info({ replica: planner.replica, healthPort: health?.port }, 'ready');
  closeOnSignal([planner], SHUTDOWN_DRAIN_MS, undefined, health);
});
