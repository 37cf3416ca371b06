import type { Ref } from '@world/canonical';
import type { RenderedPolicy } from '../policy/render-policy.js';

/** What a handler may know about the call it serves. */
export interface HandlerContext {
  episodeId: string;
  /** absolute real path of the episode worktree (the handler's only file system) */
  worktree: string;
  /** the requested scope (the symbolic `worktree` for every workspace tool) */
  scope: string;
  /** the episode's rendered policy and where it is written (mode 0600, outside the worktree) */
  policy: RenderedPolicy & { path: string };
  /** epoch ms after which the handler's result is no longer awaited */
  deadline: number;
  /** aborted when the deadline passes; long-running handlers should stop on it */
  signal: AbortSignal;
}

/** A JSON object a handler returns (before the broker stamps `tool` and `policy_digest`). */
export type HandlerOutput = Record<string, unknown>;

/**
 * One effect's handler (world-spec §2.6): its fixed op allowlist, the scopes it serves and the
 * function that runs it. An op outside `ops` or a scope outside `scopes` is refused by the
 * broker before `run` is called and recorded as a failed effect. `run` throws for a handler
 * failure (recorded `failed`, the spend stands); a policy refusal is an ordinary
 * `{ok:false, refused}` output.
 */
export interface EffectHandler {
  ops: readonly string[];
  scopes: readonly string[];
  /** ref identifying the implementation, stamped as `tool` (default: the broker's own) */
  tool?: Ref;
  /** the op of a payload, checked against `ops` (default: `payload.op`; the run path has none) */
  opOf?(payload: Record<string, unknown>): unknown;
  /** stamp `tool` and `policy_digest` on the output (default true; ailang-run outputs carry `policy`) */
  stamp?: boolean;
  run(payload: Record<string, unknown>, ctx: HandlerContext): Promise<HandlerOutput>;
}

/** Effect name → handler. Effects without an entry are refused with NoHandlerError (rule R8). */
export type HandlerRegistry = Readonly<Record<string, EffectHandler>>;

/** A payload the handler cannot interpret (missing or mistyped field): a handler failure. */
export class HandlerInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandlerInputError';
  }
}

/**
 * Reads a required string field of a payload.
 * @throws HandlerInputError naming the field
 */
export function payloadString(payload: Record<string, unknown>, key: string): string {
  const value = payload[key];
  if (typeof value !== 'string')
    throw new HandlerInputError(`payload field "${key}" must be a string`);
  return value;
}
