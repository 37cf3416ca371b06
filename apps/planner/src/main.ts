import { serveProcess } from '@world/runtime';
import { plannerConfig } from './config.js';
import { startPlanner } from './boot.js';

// The planner's distributed process (DESIGN.md §5, serveProcess): env → config (exit 2 when
// malformed) → NATS → health port (WORLD_HEALTH_PORT) → "ready"; SIGTERM drains the calls in
// flight.
serveProcess('planner', async () => {
  const config = plannerConfig();
  const planner = await startPlanner({
    transport: { kind: 'nats', url: config.NATS_URL, prefix: config.WORLD_SUBJECT_PREFIX },
    replica: config.WORLD_REPLICA,
    callDeadlineMs: config.WORLD_CALL_DEADLINE_MS,
  });
  return { running: planner, healthEnv: config };
});
