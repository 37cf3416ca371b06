import { z } from 'zod';
import { CommonEnv, loadConfig } from '@world/runtime';

const PlannerEnv = CommonEnv.extend({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222'),
  WORLD_REPLICA: z.string().min(1).optional(),
});

/** The planner process's configuration (env), validated at start (DESIGN.md §5). */
export type PlannerConfig = z.output<typeof PlannerEnv>;

/** @throws ConfigError naming the variable (the process exits 2) */
export function plannerConfig(env: NodeJS.ProcessEnv = process.env): PlannerConfig {
  return loadConfig('planner', PlannerEnv, env);
}
