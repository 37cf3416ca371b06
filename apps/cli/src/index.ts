export {
  startEmbedded,
  startDistributedInProcess,
  type System,
  type SystemOptions,
} from './system/embedded.js';
export { bootstrapDemo, DEMO_EPISODE, DEMO_EFFECTS, DEMO_TEMPLATE } from './system/demo.js';
export { worldPaths, type WorldPaths } from './system/paths.js';
export {
  spawnServices,
  spawnService,
  stopServices,
  startUp,
  serviceEntry,
  type ServiceProcess,
  type UpSystem,
} from './system/up.js';
export { parseReplicas } from './system/up-args.js';
