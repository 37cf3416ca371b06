export { startLedger, type RunningLedger, type StartLedgerOptions } from './boot.js';
export { LedgerEnv, type LedgerConfig } from './config.js';
