export { type EffectPlan, type ToolDefinition } from './types.js';
export { TOOLS } from './registry.js';
export { COMMON_SOURCE_URL } from './common.js';
export { checkPlan, checkFinishOutput } from './plan-laws.js';
