export { PlannerModule } from './planner.module.js';
export { startPlanner, type PlannerOptions } from './boot.js';
export { ToolRegistry, type RegisteredTool, SEMANTICS_EPOCH } from './registry/tool-registry.js';
export { composeOutput } from './invoke/compose-output.js';
export { admits } from './admission/admits.js';
