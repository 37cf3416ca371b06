/**
 * The ledger's distributed process: `node apps/ledger/dist/main.js` with NATS_URL and
 * DATABASE_URL set (missing or malformed → exit 2). Serves /livez, /readyz and /metrics on
 * WORLD_HEALTH_PORT when set. Logs one JSON line `ready` (with `healthPort`) when it serves.
 */
import { join } from 'node:path';
import { SHUTDOWN_DRAIN_MS } from '@world/contracts';
import {
  closeOnSignal,
  loadConfig,
  openPostgres,
  runMain,
  serviceLogger,
  startHealthFromEnv,
  startTelemetry,
} from '@world/runtime';
import { startLedger } from './boot.js';
import { LedgerEnv } from './config.js';
import { LEDGER_SERVICE } from './constants.js';

runMain(async () => {
  // OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set (README "Traces").
  startTelemetry('ledger', 'world-ledger');
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
  const health = await startHealthFromEnv(config, service.checks).catch(async (err: unknown) => {
    await service.close();
    await database.close();
    throw err;
  });
  serviceLogger(LEDGER_SERVICE).info(
    { replica: service.replica, healthPort: health?.port },
    'ready',
  );
  closeOnSignal([service], SHUTDOWN_DRAIN_MS, () => database.close(), health);
});
