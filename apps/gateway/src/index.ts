export { GatewayModule } from './gateway.module.js';
export { startGateway, type GatewayOptions, type RunningGateway } from './boot.js';
export {
  DEFAULT_WORLD_HOME,
  GatewayEnv,
  assertBindAllowed,
  isLoopbackHost,
  loadGatewayConfig,
  parseBind,
  type GatewayConfig,
} from './config.js';
export { OPERATOR_TOKEN_FILE_NAME, loadOperatorCredential } from './auth/operator-credential.js';
export { OPERATOR_MESSAGES } from './auth/authenticator.js';
export { ERROR_TABLE, HOST_FAILURE, restErrorOf, mcpErrorOf } from './errors/error-map.js';
export { MCP_PROTOCOL_VERSIONS } from './mcp/protocol.js';
export { A2A_JSONRPC_PATH, A2A_VERSIONS } from './a2a/agent-cards.js';
export { A2A_MESSAGES, a2aErrorOf } from './errors/error-map.js';
export { DAEMON_VERSION } from './identity.js';
export type { LogSink } from './log.js';
