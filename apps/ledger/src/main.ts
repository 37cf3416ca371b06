/**
 * The ledger's distributed process: `node apps/ledger/dist/main.js` with NATS_URL and
 * DATABASE_URL set (missing or malformed → exit 2). Logs one JSON line `ready` when it serves.
 */
import { SHUTDOWN_DRAIN_MS } from '@world/contracts';
import { closeOnSignal, loadConfig, openPostgres, runMain, serviceLogger } from '@world/runtime';
import { startLedger } from './boot.js';
import { LedgerEnv } from './config.js';
import { LEDGER_SERVICE } from './constants.js';

runMain(async () => {
  const config = loadConfig(LEDGER_SERVICE, LedgerEnv);
  const database = await openPostgres(config.DATABASE_URL, {
    applicationName: `world-${LEDGER_SERVICE}`,
  });
  const service = await startLedger({
    transport: { kind: 'nats', url: config.NATS_URL, prefix: config.WORLD_SUBJECT_PREFIX },
    database,
    replica: config.WORLD_REPLICA,
  });
  serviceLogger(LEDGER_SERVICE).info({ replica: service.replica }, 'ready');
  closeOnSignal([service], SHUTDOWN_DRAIN_MS, () => void database.close());
});
