export { type EffectPlan, type EffectResult, type ToolDefinition } from './types.js';
export { TOOLS, toolById } from './registry.js';
export { checkPath, COMMON_SOURCE_URL } from './common.js';
export { checkPlan, checkFinishOutput } from './plan-laws.js';
