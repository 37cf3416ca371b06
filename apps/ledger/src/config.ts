import { z } from 'zod';
import { CommonEnv } from '@world/runtime';

/**
 * The ledger process's environment (DESIGN.md §5): distributed mode needs both NATS_URL and
 * DATABASE_URL; WORLD_REPLICA names the replica (default generated); the log's signing key is
 * WORLD_LOG_KEY_FILE (default $WORLD_HOME/log.key; a compose secret in containers).
 */
export const LedgerEnv = CommonEnv.extend({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().url('DATABASE_URL must be a URL such as postgres://user@host/db'),
  WORLD_REPLICA: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'WORLD_REPLICA must be 1-64 of [A-Za-z0-9._-]')
    .optional(),
  /** World's state directory: the log key defaults to $WORLD_HOME/log.key */
  WORLD_HOME: z.string().min(1).default('.world'),
  /** the log's signing key file (tlog/log-key.ts), read or created mode 0600 */
  WORLD_LOG_KEY_FILE: z.string().min(1).optional(),
  /** the log's origin line (default derived from its key) */
  WORLD_LOG_ORIGIN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /** minimum ms between two checkpoint signings */
  WORLD_CHECKPOINT_INTERVAL_MS: z.coerce.number().int().nonnegative().default(1000),
});
