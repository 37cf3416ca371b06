export { startBroker } from './boot.js';
export { BrokerEnv } from './config.js';
/** @internal exported for apps/planner/test/e2e/system.ts */
export { type EffectHandler } from './handlers/registry.js';
/** @internal exported for apps/planner/test/e2e/system.ts */
export { workspaceRead } from './handlers/workspace.js';
