import { join } from 'node:path';
import {
  openPostgres,
  sharedHandle,
  connectRpc,
  InProcessBus,
  type DatabaseHandle,
  type RpcClient,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import { startLedger } from '@world/ledger';
import { startBroker } from '@world/broker';
import { startPlanner } from '@world/planner';
import type { HostPort } from '@world/contracts';
import { startGateway } from '@world/gateway';
import type { WorldPaths } from './paths.js';
import { startPostgresServer, type PostgresServer } from './postgres/index.js';

/** A whole World (four services + the edge) started in this process. */
export interface System {
  /** the gateway's base URL, e.g. http://127.0.0.1:7644 */
  url: string;
  /** a client on the system's transport (operator bootstrap, tests) */
  rpc: RpcClient;
  mode: 'embedded' | 'distributed';
  services: RunningService[];
  database: DatabaseHandle;
  /** embedded mode: the PostgreSQL server `world start` runs (absent with a given database) */
  postgres?: PostgresServer;
  close(): Promise<void>;
}

/** Options common to both ways of starting a system in one process. */
export interface SystemOptions {
  paths: WorldPaths;
  /** host:port of the gateway (port 0 = any free port) */
  bind: string | HostPort;
  /** serve beyond loopback (WORLD_BIND_PUBLIC=1); default loopback only */
  bindPublic?: boolean;
  publicReads?: boolean;
  callDeadlineMs?: number;
  /** the operator credential; absent → the gateway reads or creates paths.operatorTokenFile */
  operatorToken?: string;
  /** how long one /v1/log/stream run lasts (default LOG_STREAM_RUN_MS; tests shorten it) */
  logStreamRunMs?: number;
  /** POST /agui's run length and heartbeat (tests shorten them) */
  agui?: { runMs?: number; heartbeatMs?: number };
  /** the gateway's wall clock, epoch ms (default Date.now; tests move it instead of sleeping) */
  gatewayClock?: () => number;
  /**
   * The broker's operator settings (WORLD_EXAMPLES_DIR, WORLD_RUN_ALLOW_CAPS,
   * WORLD_RUN_NET_ALLOW, WORLD_RUN_NET_ALLOW_HTTP); default none. The toolchain follows
   * AILANG_BIN (startBroker's default).
   */
  broker?: {
    examplesDir?: string;
    runAllowCaps?: string[];
    netAllow?: string[];
    netAllowHttp?: boolean;
  };
}

/**
 * Embedded mode (DESIGN.md §5): World's own PostgreSQL server on `paths.pgdata`
 * (postgres/server.ts: created on first start, stopped after the services, watched, restarted
 * when it dies) and one in-process bus carry the same contract messages as distributed World's
 * PostgreSQL and NATS; the same service modules run. With `database` (tests: a database on the
 * machine's PostgreSQL) no server is started; close() closes the handle, as in distributed mode.
 * @throws what startPostgresServer throws (CliError exit 2 for an unusable WORLD_HOME)
 */
export async function startEmbedded(
  options: SystemOptions & { database?: DatabaseHandle; say?: (line: string) => void },
): Promise<System> {
  let server: PostgresServer | undefined;
  let database = options.database;
  if (database === undefined) {
    server = await startPostgresServer({ home: options.paths.home, say: options.say });
    try {
      database = await openPostgres(server.url, { applicationName: 'world-embedded' });
    } catch (err) {
      await server.stop();
      throw err;
    }
  }
  const transport: TransportConfig = { kind: 'inproc', bus: new InProcessBus() };
  try {
    const system = await startServices(
      'embedded',
      transport,
      database,
      options,
      server?.pgdata ?? 'postgres',
    );
    if (server === undefined) return system;
    const owned = server;
    return {
      ...system,
      postgres: owned,
      async close() {
        try {
          await system.close();
        } finally {
          await owned.stop();
        }
      },
    };
  } catch (err) {
    if (server !== undefined) {
      await database.close().catch(() => undefined);
      await server.stop();
    }
    throw err;
  }
}

/**
 * Distributed mode in one process (tests and `world start` with NATS_URL and DATABASE_URL set):
 * every service on NATS and PostgreSQL, as separate processes would be.
 */
export async function startDistributedInProcess(
  options: SystemOptions & {
    natsUrl: string;
    prefix: string;
    database: DatabaseHandle;
    dbPath: string;
  },
): Promise<System> {
  const transport: TransportConfig = { kind: 'nats', url: options.natsUrl, prefix: options.prefix };
  return startServices('distributed', transport, options.database, options, options.dbPath);
}

async function startServices(
  mode: System['mode'],
  transport: TransportConfig,
  database: DatabaseHandle,
  options: SystemOptions,
  dbPath: string,
): Promise<System> {
  const services: RunningService[] = [];
  const stopAll = async () => {
    for (const s of services.reverse()) await s.close().catch(() => undefined);
  };
  try {
    const ledger = await startLedger({
      transport,
      database: sharedHandle(database),
      logKey: {
        file: options.paths.logKeyFile,
        origin: process.env.WORLD_LOG_ORIGIN || undefined,
      },
    });
    services.push(ledger);
    const broker = await startBroker({
      transport,
      database: sharedHandle(database),
      worldHome: options.paths.home,
      workspaceRoot: options.paths.workspaceRoot,
      callDeadlineMs: options.callDeadlineMs,
      examplesDir: options.broker?.examplesDir,
      runAllowCaps: options.broker?.runAllowCaps,
      netAllow: options.broker?.netAllow,
      netAllowHttp: options.broker?.netAllowHttp,
    });
    services.push(broker);
    services.push(await startPlanner({ transport, callDeadlineMs: options.callDeadlineMs }));
    const gateway = await startGateway({
      transport,
      bind: options.bind,
      bindPublic: options.bindPublic,
      worldHome: options.paths.home,
      publicReads: options.publicReads ?? false,
      operatorToken: options.operatorToken,
      // The default file ($WORLD_HOME/operator.token) is created by the gateway when absent.
      operatorTokenFile:
        options.paths.operatorTokenFile === join(options.paths.home, 'operator.token')
          ? undefined
          : options.paths.operatorTokenFile,
      callDeadlineMs: options.callDeadlineMs,
      logStreamRunMs: options.logStreamRunMs,
      agui: options.agui,
      clock: options.gatewayClock,
      dbPath,
      // One process: its /readyz shows the database and the ledger's and broker's integrity scans.
      database: () => database.ping(),
      integrity: () => ({ ledger: ledger.integrity.report(), broker: broker.integrity.report() }),
    });
    services.push(gateway);
    const rpc = await connectRpc(transport, `${mode}-system`);
    return {
      url: gateway.url,
      rpc,
      mode,
      services,
      database,
      async close() {
        await rpc.close();
        await stopAll();
        await database.close();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
