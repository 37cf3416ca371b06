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
  /** the examples corpus examples-search reads (world-spec §3.7); must lie outside the workspace root */
  WORLD_EXAMPLES_DIR: z.string().min(1).optional(),
  /** ailang-run caps beyond IO and FS the operator enables: a comma list of Declassify, Env, Net */
  WORLD_RUN_ALLOW_CAPS: z
    .string()
    .regex(
      /^$|^(Declassify|Env|Net)(,(Declassify|Env|Net))*$/,
      'WORLD_RUN_ALLOW_CAPS must be a comma list of Declassify, Env, Net',
    )
    .default('')
    .transform((v) => (v === '' ? [] : v.split(','))),
  /** IP:PORT literals a Net run may reach: a comma list such as 127.0.0.1:8080 */
  WORLD_RUN_NET_ALLOW: z
    .string()
    .regex(
      /^$|^\d{1,3}(\.\d{1,3}){3}:\d{1,5}(,\d{1,3}(\.\d{1,3}){3}:\d{1,5})*$/,
      'WORLD_RUN_NET_ALLOW must be a comma list of IP:PORT literals',
    )
    .default('')
    .transform((v) => (v === '' ? [] : v.split(','))),
  /** a real ailang binary to use instead of the embedded toolchain (DESIGN.md §7.8) */
  AILANG_BIN: z.string().min(1).optional(),
});
export type BrokerEnv = z.output<typeof BrokerEnv>;
