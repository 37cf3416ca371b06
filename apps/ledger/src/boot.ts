import { randomBytes } from 'node:crypto';
import {
  connectRpc,
  serviceLogger,
  startMicroservice,
  type DatabaseHandle,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
  LEDGER_SERVICE,
} from './constants.js';
import { observeHead } from './commit/commit-invocation.js';
import { CommitRepository } from './commit/commit.repository.js';
import { bootstrapGenesis } from './genesis/bootstrap-genesis.js';
import { LedgerModule } from './ledger.module.js';

/** How to start one ledger replica. */
export interface StartLedgerOptions {
  /** NATS (distributed) or the in-process bus (embedded) */
  transport: TransportConfig;
  /** PostgreSQL or PGlite; the caller owns it and closes it after close() */
  database: DatabaseHandle;
  /** this replica's name (default `ledger-<6 hex>`) */
  replica?: string;
}

/** Bytes of randomness in a default replica name. */
const REPLICA_SUFFIX_BYTES = 3;

/**
 * Starts one ledger replica: migrates schema `ledger` (drizzle-kit migrations under advisory lock
 * LEDGER_LOCK_KEY), creates the genesis world on a fresh database (once across replicas,
 * DESIGN.md §7.3), connects the RPC client that emits `ledger.committed`, and serves every
 * `ledger.*` subject in queue group `ledger`; `world_ledger_head_index` and the head the first
 * lone commit chains on (commit-fast.ts) start at the head read.
 * @returns the running replica; close() stops taking requests, lets those in flight finish
 *   (SHUTDOWN_DRAIN_MS) and disconnects (the database stays open)
 * @throws whatever migrating or connecting throws (the process exits non-zero)
 */
export async function startLedger(options: StartLedgerOptions): Promise<RunningService> {
  const replica =
    options.replica ?? `${LEDGER_SERVICE}-${randomBytes(REPLICA_SUFFIX_BYTES).toString('hex')}`;
  const { database, transport } = options;
  await database.migrate({
    folder: LEDGER_MIGRATIONS_FOLDER,
    table: LEDGER_MIGRATIONS_TABLE,
    lockKey: LEDGER_LOCK_KEY,
  });
  if (await bootstrapGenesis(database))
    serviceLogger(LEDGER_SERVICE).info({ replica }, 'genesis created');
  const rpc = await connectRpc(transport, `${LEDGER_SERVICE}-${replica}`);
  let app;
  try {
    app = await startMicroservice(
      LEDGER_SERVICE,
      LedgerModule.register({ database, rpc, replica }),
      transport,
      { replica },
    );
    // Seeds the head the first lone commit chains on (commit-fast.ts) and the head metric.
    const head = await app.get(CommitRepository).refreshHead();
    observeHead(replica, head.entryIndex);
  } catch (err) {
    await app?.close().catch(() => undefined);
    await rpc.close();
    throw err;
  }
  const microservice = app;
  let closed: Promise<void> | undefined;
  return {
    service: LEDGER_SERVICE,
    replica,
    checks: {
      database: () => database.ping(),
      ...(transport.kind === 'nats' && { nats: () => rpc.ping() }),
    },
    close() {
      closed ??= (async () => {
        await microservice.close();
        await rpc.close();
      })();
      return closed;
    },
  };
}
