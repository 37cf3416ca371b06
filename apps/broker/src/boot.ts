import { randomUUID } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CALL_DEADLINE_MS, deadlineTable, type IntegrityReport } from '@world/contracts';
import {
  ConfigError,
  INTEGRITY_BUDGET,
  answerReplicaSurvey,
  connectRpc,
  renewEvery,
  serviceLogger,
  startIntegrityScan,
  startMicroservice,
  type DatabaseHandle,
  type IntegrityBudget,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import { BrokerModule } from './broker.module.js';
import {
  ORPHAN_SWEEP_MS,
  RecoverIntents,
  type IndeterminateIntent,
} from './effects/recover-intents.js';
import { ReportUncommitted } from './effects/report-uncommitted.js';
import { IntegrityRepository } from './integrity/integrity.repository.js';
import { scanBroker } from './integrity/scan-broker.js';
import type { EffectHandler } from './handlers/registry.js';
import { workspaceHandlers } from './handlers/workspace.js';
import { ailangHandlers } from './handlers/ailang.js';
import { isInside, toolchainFromEnv, type Toolchain } from '@world/ailang';
import type { BrokerSettings } from './settings.js';

/**
 * drizzle-kit migrations of schema `broker` (apps/broker/drizzle, beside src/ and dist/).
 * @internal exported for test/integration/tx1-orphan.int-spec.ts, tx2-orphan.int-spec.ts, outcome-order.int-spec.ts
 */
export const BROKER_MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));
/**
 * Journal table of the broker's migrations, in schema `drizzle`.
 * @internal exported for test/integration/tx1-orphan.int-spec.ts, tx2-orphan.int-spec.ts, outcome-order.int-spec.ts
 */
export const BROKER_MIGRATIONS_TABLE = '__drizzle_migrations_broker';
/**
 * Advisory lock key of the broker's migrations: ASCII "brkr" (one fixed key per service).
 * @internal exported for test/integration/tx1-orphan.int-spec.ts, tx2-orphan.int-spec.ts, outcome-order.int-spec.ts
 */
export const BROKER_MIGRATION_LOCK_KEY = 0x62726b72;

/** Options of startBroker. */
export interface BrokerOptions {
  transport: TransportConfig;
  /** the broker's database (PostgreSQL); the caller owns it and closes it after close() */
  database: DatabaseHandle;
  replica?: string;
  /** World's state directory (default ./.world, resolved to an absolute path) */
  worldHome?: string;
  /** episode worktrees (default <worldHome>/worktrees) */
  workspaceRoot?: string;
  /** handlers merged over the workspace and AILANG handlers (tests) */
  handlers?: Record<string, EffectHandler>;
  /** the AILANG toolchain (default: toolchainFromEnv(): AILANG_BIN, else the embedded subset) */
  toolchain?: Toolchain;
  /** the operator's examples corpus for examples-search (must lie outside the workspace root) */
  examplesDir?: string;
  /** ailang-run caps beyond IO and FS the operator enables (world-spec §3.5) */
  runAllowCaps?: string[];
  /** IP:PORT literals a Net run may reach */
  netAllow?: string[];
  /** plain http to them (WORLD_RUN_NET_ALLOW_HTTP); default false: https only */
  netAllowHttp?: boolean;
  /** the invocation deadline the policy timeout derives from (default CALL_DEADLINE_MS) */
  callDeadlineMs?: number;
  /** the start-up integrity scan's budgets (default INTEGRITY_BUDGET; tests narrow them) */
  integrityBudget?: IntegrityBudget;
  /** how often orphaned intents are looked for while serving (default ORPHAN_SWEEP_MS) */
  orphanSweepMs?: number;
}

/** A running broker replica, with what its start-up recovery reported. */
export interface RunningBroker extends RunningService {
  settings: BrokerSettings;
  /** intents without an outcome found at start (world-internals §5.5) */
  indeterminate: IndeterminateIntent[];
  /** the start-up integrity scan: its report so far, and its final report (never rejects) */
  integrity: { report(): IntegrityReport; done: Promise<IntegrityReport> };
}

/**
 * Resolves the broker's directories (created when missing, then taken as real paths).
 * @throws ConfigError when the policies directory would lie inside the workspace root
 *   (world-spec §2.3, §8.2: agents must not reach their own policy)
 */
async function resolveBrokerSettings(
  options: Pick<BrokerOptions, 'worldHome' | 'workspaceRoot' | 'callDeadlineMs' | 'examplesDir'>,
  replica: string,
): Promise<BrokerSettings> {
  const home = resolve(options.worldHome ?? '.world');
  const root = resolve(options.workspaceRoot ?? join(home, 'worktrees'));
  await mkdir(home, { recursive: true });
  await mkdir(root, { recursive: true });
  const worldHome = await realpath(home);
  const workspaceRoot = await realpath(root);
  const policiesDir = join(worldHome, 'policies');
  if (isInside(workspaceRoot, policiesDir)) {
    throw new ConfigError(
      `broker: invalid configuration: the policies directory ${policiesDir} lies inside the workspace root ${workspaceRoot}`,
    );
  }
  const examplesDir =
    options.examplesDir === undefined ? undefined : await realpath(resolve(options.examplesDir));
  if (examplesDir !== undefined && isInside(workspaceRoot, examplesDir)) {
    throw new ConfigError(
      `broker: invalid configuration: the examples corpus ${examplesDir} lies inside the workspace root ${workspaceRoot}`,
    );
  }
  return {
    workspaceRoot,
    worldHome,
    policiesDir,
    examplesDir,
    policyTimeoutMs: deadlineTable(options.callDeadlineMs ?? CALL_DEADLINE_MS).policyTimeoutMs,
    callDeadlineMs: options.callDeadlineMs ?? CALL_DEADLINE_MS,
    replica,
  };
}

/**
 * Starts one broker replica (DESIGN.md §1): migrates schema `broker` under its advisory lock,
 * serves every `broker.*` subject on the transport (queue group `broker`), then runs start-up
 * recovery (indeterminate intents are reported, never re-run) and, in the background, the
 * start-up integrity scan of its objects and records (integrity/scan-broker.ts; `/readyz`
 * `integrity.broker`). close() stops taking requests, lets the executes in flight finish
 * (SHUTDOWN_DRAIN_MS), waits for the scan (bounded by its budget), then disconnects.
 * @throws ConfigError for unusable directories; the database or transport error otherwise
 */
export async function startBroker(options: BrokerOptions): Promise<RunningBroker> {
  const startedAtMs = Date.now();
  const replica = options.replica ?? `broker-${randomUUID()}`;
  const settings = await resolveBrokerSettings(options, replica);
  const database = options.database;
  await database.migrate({
    folder: BROKER_MIGRATIONS_FOLDER,
    table: BROKER_MIGRATIONS_TABLE,
    lockKey: BROKER_MIGRATION_LOCK_KEY,
  });
  const rpc = await connectRpc(options.transport, `broker-${replica}`);
  const handlers = {
    ...workspaceHandlers(),
    ...(await ailangHandlers(options.toolchain ?? toolchainFromEnv(), {
      examplesDir: settings.examplesDir,
      runAllowCaps: options.runAllowCaps ?? [],
      netAllow: options.netAllow ?? [],
      netAllowHttp: options.netAllowHttp ?? false,
      cacheRoot: join(settings.worldHome, 'cache'),
    })),
    ...options.handlers,
  };
  const app = await startMicroservice(
    'broker',
    BrokerModule.register({ database, rpc, replica, settings, handlers }),
    options.transport,
    { replica },
  );
  const recovery = app.get(RecoverIntents);
  const uncommitted = app.get(ReportUncommitted);
  const indeterminate = await recovery.execute();
  // Orphans left by a replica that died, and effects whose invocation never committed, are
  // reported without waiting for a restart.
  const sweep = renewEvery(
    options.orphanSweepMs ?? ORPHAN_SWEEP_MS,
    async () => {
      await recovery.sweep();
      await uncommitted.sweep();
    },
    (err) => {
      serviceLogger('broker').warn({ err, replica }, 'orphaned-intent sweep failed');
      return 'continue';
    },
  );
  serviceLogger('broker').info(
    { replica, workspaceRoot: settings.workspaceRoot, indeterminate: indeterminate.length },
    'broker started',
  );
  const budget = options.integrityBudget ?? INTEGRITY_BUDGET;
  const integrity = startIntegrityScan(
    'broker',
    (scan) => scanBroker(new IntegrityRepository(database), scan),
    budget,
  );
  const checks = {
    database: () => database.ping(),
    ...(options.transport.kind === 'nats' && { nats: () => rpc.ping() }),
    integrity: () => ({ broker: integrity.report() }),
  };
  // Every replica answers the replica survey (the workbench's Overview), outside the queue group.
  const stopAnswering = answerReplicaSurvey(rpc, {
    service: 'broker',
    replica,
    checks,
    startedAtMs,
  });
  let closed = false;
  return {
    service: 'broker',
    replica,
    settings,
    indeterminate,
    integrity,
    checks,
    async close() {
      if (closed) return;
      closed = true;
      stopAnswering();
      await sweep.stop();
      await app.close();
      await integrity.done;
      await rpc.close();
    },
  };
}
