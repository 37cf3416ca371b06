export { BrokerModule, type BrokerModuleOptions } from './broker.module.js';
export {
  startBroker,
  resolveBrokerSettings,
  BROKER_MIGRATIONS_FOLDER,
  BROKER_MIGRATIONS_TABLE,
  BROKER_MIGRATION_LOCK_KEY,
  type BrokerOptions,
  type RunningBroker,
} from './boot.js';
export { BrokerEnv } from './config.js';
export type { BrokerSettings } from './settings.js';
export { decide, type Decision, type EffectAsk, type GrantView } from './effects/decide.js';
export {
  effectRecord,
  effectRecordObject,
  effectRequestObject,
  effectResultObject,
  type RecordArm,
  type EffectRequestFields,
} from './effects/effect-objects.js';
export type { IndeterminateIntent } from './effects/recover-intents.js';
export { classifySession, type CredentialResolution } from './sessions/resolve-session.js';
export {
  renderPolicy,
  FS_DENY_WRITE,
  type PolicyInput,
  type RenderedPolicy,
} from './policy/render-policy.js';
export {
  HandlerInputError,
  payloadString,
  type EffectHandler,
  type HandlerContext,
  type HandlerOutput,
  type HandlerRegistry,
} from './handlers/registry.js';
export {
  workspaceHandlers,
  workspaceRead,
  workspaceWrite,
  WORKTREE_SCOPE,
} from './handlers/workspace.js';
export { writeFileAtomic } from './handlers/atomic-write.js';
export { BROKER_TOOL_REF, BROKER_VERSION } from './handlers/tool-identity.js';
