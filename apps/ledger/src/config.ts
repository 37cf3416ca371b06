import { z } from 'zod';
import { CommonEnv } from '@world/runtime';

/**
 * The ledger process's environment (DESIGN.md §5): distributed mode needs both NATS_URL and
 * DATABASE_URL; WORLD_REPLICA names the replica (default generated).
 */
export const LedgerEnv = CommonEnv.extend({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().url('DATABASE_URL must be a URL such as postgres://user@host/db'),
  WORLD_REPLICA: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'WORLD_REPLICA must be 1-64 of [A-Za-z0-9._-]')
    .optional(),
});
export type LedgerConfig = z.output<typeof LedgerEnv>;
