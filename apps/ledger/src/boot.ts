import { randomBytes } from 'node:crypto';
import type { IntegrityReport } from '@world/contracts';
import {
  INTEGRITY_BUDGET,
  answerReplicaSurvey,
  connectRpc,
  serviceLogger,
  startIntegrityScan,
  startMicroservice,
  type DatabaseHandle,
  type IntegrityBudget,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
  LEDGER_SERVICE,
} from './constants.js';
import { observeHead } from './commit/committed-events.js';
import { CommitRepository } from './commit/commit.repository.js';
import { bootstrapGenesis } from './genesis/bootstrap-genesis.js';
import { IntegrityRepository, TreeIntegrityRepository } from './integrity/integrity.repository.js';
import { scanLedger } from './integrity/scan-ledger.js';
import { LedgerModule } from './ledger.module.js';
import { TreeGuard } from './commit/tree-guard.js';
import { CheckpointSigner } from './tlog/checkpoint-signer.js';
import { loadLogKey, type LogKeyOptions } from './tlog/log-key.js';
import { TreeRepository } from './tlog/tree.repository.js';

/** How to start one ledger replica. */
export interface StartLedgerOptions {
  /** NATS (distributed) or the in-process bus (embedded) */
  transport: TransportConfig;
  /** PostgreSQL; the caller owns it and closes it after close() */
  database: DatabaseHandle;
  /** this replica's name (default `ledger-<6 hex>`) */
  replica?: string;
  /** the start-up integrity scan's budgets (default INTEGRITY_BUDGET; tests narrow them) */
  integrityBudget?: IntegrityBudget;
  /**
   * the log's signing key (tlog/log-key.ts): its file (read, or created mode 0600) and origin;
   * without a file the key lives only in this process (tests)
   */
  logKey?: LogKeyOptions;
  /** minimum ms between two checkpoint signings (default CHECKPOINT_INTERVAL_MS) */
  checkpointIntervalMs?: number;
}

/** A running ledger replica, with its start-up integrity scan. */
export interface RunningLedger extends RunningService {
  /** the start-up integrity scan: its report so far, and its final report (never rejects) */
  integrity: { report(): IntegrityReport; done: Promise<IntegrityReport> };
}

/** Bytes of randomness in a default replica name. */
const REPLICA_SUFFIX_BYTES = 3;

/**
 * Starts one ledger replica: migrates schema `ledger` (drizzle-kit migrations under advisory lock
 * LEDGER_LOCK_KEY), creates the genesis world on a fresh database (once across replicas,
 * DESIGN.md §7.3), connects the RPC client that emits `ledger.committed`, and serves every
 * `ledger.*` subject in queue group `ledger`; `world_ledger_head_index` and the head the first
 * lone commit chains on (commit-strategies.ts ONE_STATEMENT) start at the head read. Then, in
 * the background, the start-up integrity scan (integrity/scan-ledger.ts) checks entries and
 * objects newest first; its report is the `integrity.ledger` of `/readyz`.
 * @returns the running replica; close() stops taking requests, lets those in flight finish
 *   (SHUTDOWN_DRAIN_MS), waits for the scan (bounded by its budget) and disconnects (the
 *   database stays open)
 * @throws whatever migrating or connecting throws (the process exits non-zero)
 */
export async function startLedger(options: StartLedgerOptions): Promise<RunningLedger> {
  const startedAtMs = Date.now();
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
  const guard = new TreeGuard();
  const tree = new TreeRepository(database);
  const signer = new CheckpointSigner(
    tree,
    loadLogKey(options.logKey ?? {}),
    guard,
    options.checkpointIntervalMs,
  );
  // The first checkpoint (or the check that the stored tree extends the last one) before serving.
  await signer
    .current()
    .catch((err: unknown) =>
      serviceLogger(LEDGER_SERVICE).error({ err }, 'no checkpoint signed at start'),
    );
  const rpc = await connectRpc(transport, `${LEDGER_SERVICE}-${replica}`);
  let app;
  try {
    app = await startMicroservice(
      LEDGER_SERVICE,
      LedgerModule.register({ database, rpc, replica, guard, signer, tree }),
      transport,
      { replica },
    );
    // Seeds the head the first lone commit chains on (ONE_STATEMENT) and the head metric.
    const head = await app.get(CommitRepository).refreshHead();
    observeHead(replica, head.entryIndex);
  } catch (err) {
    await app?.close().catch(() => undefined);
    await rpc.close();
    throw err;
  }
  const microservice = app;
  const budget = options.integrityBudget ?? INTEGRITY_BUDGET;
  const integrity = startIntegrityScan(
    LEDGER_SERVICE,
    (scan) =>
      scanLedger(
        new IntegrityRepository(database),
        scan,
        budget.maxRows,
        new TreeIntegrityRepository(database),
      ),
    budget,
  );
  const checks = {
    database: () => database.ping(),
    ...(transport.kind === 'nats' && { nats: () => rpc.ping() }),
    integrity: () => ({ [LEDGER_SERVICE]: integrity.report() }),
  };
  // Every replica answers the replica survey (the workbench's Overview), outside the queue group.
  const stopAnswering = answerReplicaSurvey(rpc, {
    service: LEDGER_SERVICE,
    replica,
    checks,
    startedAtMs,
  });
  let closed: Promise<void> | undefined;
  return {
    service: LEDGER_SERVICE,
    replica,
    integrity,
    checks,
    close() {
      closed ??= (async () => {
        stopAnswering();
        await microservice.close();
        await integrity.done;
        await rpc.close();
      })();
      return closed;
    },
  };
}
