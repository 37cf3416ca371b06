import { z } from 'zod';
import { CommonEnv } from '@world/runtime';

/**
 * The broker process's environment (DESIGN.md §5): NATS and PostgreSQL are required in the
 * distributed mode; WORLD_HOME (default ./.world) holds World's own state and the policies;
 * WORLD_WORKSPACE_ROOT (default $WORLD_HOME/worktrees) holds the episode worktrees.
 */
export const BrokerEnv = CommonEnv.extend({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().url('DATABASE_URL must be a URL such as postgres://user@host/db'),
  WORLD_HOME: z.string().min(1, 'WORLD_HOME must be a directory path').default('.world'),
  WORLD_WORKSPACE_ROOT: z
    .string()
    .min(1, 'WORLD_WORKSPACE_ROOT must be a directory path')
    .optional(),
  WORLD_REPLICA: z.string().min(1).optional(),
});
export type BrokerEnv = z.output<typeof BrokerEnv>;
