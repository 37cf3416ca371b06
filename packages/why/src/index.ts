/**
 * @world/why: the provenance walk of `world why` (world-spec §7.3, §9), shared by the
 * CLI (over `/v1`) and the gateway's workbench (in-process, in the caller's read scope).
 */
export * from './format.js';
export * from './lines.js';
export * from './link.js';
export { prevProblems, refusedOr } from './entry-link.js';
export { walkWithLog, type LogLinkReads } from './log-link.js';
export * from './reads.js';
export * from './target.js';
export { walk } from './walk.js';
