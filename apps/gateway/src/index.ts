export { startGateway } from './boot.js';
/** @internal exported for apps/planner/test/e2e/system.ts */
export type { RunningGateway } from './boot.js';
export { assertBindAllowed, parseBind } from './config.js';
/** @internal exported for apps/cli/test/integration/compose.int-spec.ts */
export { loadGatewayConfig } from './config.js';
export { OPERATOR_TOKEN_FILE_NAME, loadOperatorCredential } from './auth/operator-credential.js';
