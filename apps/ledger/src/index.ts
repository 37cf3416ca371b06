export { startLedger, type RunningLedger } from './boot.js';
export { LedgerEnv } from './config.js';
