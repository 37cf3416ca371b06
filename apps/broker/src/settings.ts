import type { HandlerRegistry } from './handlers/registry.js';

/** Injection tokens of the broker module. */
export const BROKER_SETTINGS = Symbol('broker.settings');
export const HANDLERS = Symbol('broker.handlers');

/** Resolved settings every broker use case reads (all paths absolute and real). */
export interface BrokerSettings {
  /** where episode worktrees live: <workspaceRoot>/<episodeId> (world-spec §2.1) */
  workspaceRoot: string;
  /** World's own state directory; policies go to <worldHome>/policies (world-spec §7.5) */
  worldHome: string;
  /** <worldHome>/policies, outside the workspace root (world-spec §8.2) */
  policiesDir: string;
  /** AILANG supervisor timeout rendered into each policy: deadlineTable(total).policyTimeoutMs */
  policyTimeoutMs: number;
  /** the invocation deadline (ms): bounds how long a live call can keep an intent open */
  callDeadlineMs: number;
  /** the operator's examples corpus (real path, outside the workspace root), if any */
  examplesDir?: string;
  replica: string;
}

export type { HandlerRegistry };
