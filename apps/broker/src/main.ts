/**
 * The broker's distributed process entry (DESIGN.md §5): configuration from the environment
 * (exit 2 when missing or malformed), PostgreSQL, NATS, the health port (WORLD_HEALTH_PORT),
 * one "ready" line, drain on SIGTERM (serveProcess).
 */
import 'reflect-metadata';
import { loadConfig, openPostgres, serveProcess } from '@world/runtime';
import { toolchainFromEnv } from '@world/ailang';
import { startBroker } from './boot.js';
import { BrokerEnv } from './config.js';

serveProcess('broker', async () => {
  const config = loadConfig('broker', BrokerEnv);
  const database = await openPostgres(config.DATABASE_URL, { applicationName: 'world-broker' });
  const broker = await startBroker({
    transport: { kind: 'nats', url: config.NATS_URL, prefix: config.WORLD_SUBJECT_PREFIX },
    database,
    replica: config.WORLD_REPLICA,
    worldHome: config.WORLD_HOME,
    workspaceRoot: config.WORLD_WORKSPACE_ROOT,
    callDeadlineMs: config.WORLD_CALL_DEADLINE_MS,
    orphanSweepMs: config.WORLD_ORPHAN_SWEEP_MS,
    examplesDir: config.WORLD_EXAMPLES_DIR,
    runAllowCaps: config.WORLD_RUN_ALLOW_CAPS,
    netAllow: config.WORLD_RUN_NET_ALLOW,
    netAllowHttp: config.WORLD_RUN_NET_ALLOW_HTTP,
    toolchain: toolchainFromEnv({ AILANG_BIN: config.AILANG_BIN }),
  }).catch(async (err: unknown) => {
    await database.close();
    throw err;
  });
  return { running: broker, healthEnv: config, onClosed: () => database.close() };
});
