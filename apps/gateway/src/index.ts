export { startGateway, type GatewayOptions, type RunningGateway } from './boot.js';
export { assertBindAllowed, loadGatewayConfig, parseBind } from './config.js';
export { OPERATOR_TOKEN_FILE_NAME, loadOperatorCredential } from './auth/operator-credential.js';
export { OPERATOR_MESSAGES } from './auth/authenticator.js';
export type { LogSink } from './log.js';
