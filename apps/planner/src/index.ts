export { startPlanner } from './boot.js';
