export { LedgerModule, type LedgerModuleOptions } from './ledger.module.js';
export { startLedger, type RunningLedger, type StartLedgerOptions } from './boot.js';
export { LedgerEnv, type LedgerConfig } from './config.js';
export { LEDGER_LOCK_KEY, LEDGER_MIGRATIONS_TABLE, LEDGER_SERVICE } from './constants.js';
export {
  genesis,
  FIRST_EPOCH_RELEASE,
  FIRST_SEMANTICS_EPOCH,
  GENESIS_WRITTEN_BY,
  LEDGER_PROVENANCE,
  type Genesis,
} from './genesis/genesis.js';
export {
  chainToolCommit,
  checkRestCommit,
  commitHashOf,
  nextLink,
  type HeadPosition,
} from './commit/chain.js';
export { pageLimit, denseRun } from './reads/paging.js';
export { receiptOf, invocationOf, decideBegin } from './journal/invocation-law.js';
