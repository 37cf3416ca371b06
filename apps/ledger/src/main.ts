/**
 * The ledger's distributed process: `node apps/ledger/dist/main.js` with NATS_URL and
 * DATABASE_URL set (missing or malformed → exit 2). Serves /livez, /readyz and /metrics on
 * WORLD_HEALTH_PORT when set. Logs one JSON line `ready` (with `healthPort`) when it serves
 * (serveProcess).
 */
import { join } from 'node:path';
import { loadConfig, openPostgres, serveProcess } from '@world/runtime';
import { startLedger } from './boot.js';
import { LedgerEnv } from './config.js';
import { LEDGER_SERVICE } from './constants.js';

serveProcess(LEDGER_SERVICE, async () => {
  const config = loadConfig(LEDGER_SERVICE, LedgerEnv);
  const database = await openPostgres(config.DATABASE_URL, {
    applicationName: `world-${LEDGER_SERVICE}`,
  });
  const service = await startLedger({
    transport: { kind: 'nats', url: config.NATS_URL, prefix: config.WORLD_SUBJECT_PREFIX },
    database,
    replica: config.WORLD_REPLICA,
    logKey: {
      file: config.WORLD_LOG_KEY_FILE ?? join(config.WORLD_HOME, 'log.key'),
      origin: config.WORLD_LOG_ORIGIN,
    },
    checkpointIntervalMs: config.WORLD_CHECKPOINT_INTERVAL_MS,
  });
  return { running: service, healthEnv: config, onClosed: () => database.close() };
});
