export { startLedger } from './boot.js';
/** @internal exported for apps/cli/test/integration/compose.int-spec.ts */
export { LedgerEnv } from './config.js';
