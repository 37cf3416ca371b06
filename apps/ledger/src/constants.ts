/**
 * The ledger's own fixed values. None is a World limit (those live in
 * packages/contracts/src/limits.ts); these name facts of the ledger's storage.
 */
import { fileURLToPath } from 'node:url';

/** The service name: NATS queue group, logger name, migration journal suffix. */
export const LEDGER_SERVICE = 'ledger';

/**
 * Advisory lock key of the ledger's schema ("WLDG"): migrations take it for the session and the
 * genesis bootstrap for its transaction, so replicas booting together apply the migrations once
 * and create one genesis (ecosystem §3.2).
 */
export const LEDGER_LOCK_KEY = 0x574c4447;

/** drizzle-kit's migrations of schema `ledger`, committed in apps/ledger/drizzle. */
export const LEDGER_MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/** The ledger's migration journal, in drizzle's default schema `drizzle`. */
export const LEDGER_MIGRATIONS_TABLE = `__drizzle_migrations_${LEDGER_SERVICE}`;

/** The Nest token of the replica's CheckpointSigner (tlog/checkpoint-signer.ts). */
export const CHECKPOINT_SIGNER = Symbol('CHECKPOINT_SIGNER');
