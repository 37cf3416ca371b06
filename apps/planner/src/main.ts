import { SHUTDOWN_DRAIN_MS } from '@world/contracts';
import { closeOnSignal, runMain, serviceLogger } from '@world/runtime';
import { plannerConfig } from './config.js';
import { startPlanner } from './boot.js';

runMain(async () => {
  const config = plannerConfig();
  const planner = await startPlanner({
    transport: { kind: 'nats', url: config.NATS_URL, prefix: config.WORLD_SUBJECT_PREFIX },
    replica: config.WORLD_REPLICA,
    callDeadlineMs: config.WORLD_CALL_DEADLINE_MS,
  });
  serviceLogger('planner').info({ replica: planner.replica }, 'ready');
  closeOnSignal([planner], SHUTDOWN_DRAIN_MS);
});
