export {
  startBroker,
  BROKER_MIGRATIONS_FOLDER,
  BROKER_MIGRATIONS_TABLE,
  BROKER_MIGRATION_LOCK_KEY,
  type BrokerOptions,
  type RunningBroker,
} from './boot.js';
export { BrokerEnv } from './config.js';
export { classifySession } from './sessions/resolve-session.js';
export { renderPolicy } from './policy/render-policy.js';
export { type EffectHandler } from './handlers/registry.js';
export { workspaceRead } from './handlers/workspace.js';
export { BROKER_TOOL_REF } from './handlers/tool-identity.js';
