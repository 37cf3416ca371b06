import { isRef } from '@world/canonical';
import {
  BadRequestError,
  READ_DEADLINE_MS,
  REPLY_GRACE_MS,
  ServiceUnavailableError,
  UnknownToolError,
  WorldError,
  type ReplyOf,
  type Session,
  type ToolDescriptor,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';

/** What an A2A tool call needs from the gateway. */
export interface SkillDeps {
  rpc: RpcClient;
  /** the invocation deadline in ms (WORLD_CALL_DEADLINE_MS) */
  callDeadlineMs: number;
  /** epoch milliseconds (tests may pin it) */
  clock?: () => number;
}

/** One A2A tool call, as both A2A surfaces decode it. */
export interface SkillCall {
  /** the idempotency key: tasks/send `params.id`, SendMessage `messageId` (already checked) */
  taskId: string;
  /** the tool the caller names (`metadata.skill_id`) */
  skillId: string;
  /** the arguments object of the one data part, or null when the parts are not exactly that */
  args: Record<string, unknown> | null;
  /** `metadata.transition_fn` as sent; undefined when absent */
  pin: unknown;
}

/**
 * The `transition_fn` pin names another source than the registered one (world-spec §6.5:
 * -32602 `proposal does not match the registered transition`). Raised by the gateway only.
 */
export class TransitionPinMismatchError extends WorldError {
  readonly errorClass = 'TransitionPinMismatch';
  constructor() {
    super('proposal does not match the registered transition');
  }
}

/**
 * A2A dispatch after the envelope checks, in the order of world-spec §6.5: a fresh registry
 * snapshot for the session (any failure: the call is not available) → the skill must be visible
 * → exactly one data part holding an object → a `transition_fn` pin must be a ref equal to the
 * registered source → `planner.invoke` on the `a2a` surface with the task id as idempotency key
 * (invocation id `a2a:<episode>:<task>`, world-spec §10). The planner claims the id in the ledger,
 * so a resend of a committed task answers its committed output and runs nothing (§4.6).
 * @returns the planner's reply: committed output (and its exact bytes), entry index, world ref
 * @throws ServiceUnavailableError (registry snapshot failed; its cause attached), UnknownToolError,
 *   BadRequestError (parts, pin), TransitionPinMismatchError, and whatever `planner.invoke` throws
 *   (InvocationInFlight, InvocationNotCommitted, Uncertain, EffectsUnrecorded, NoHandler,
 *   TransportTimeout…)
 */
export async function invokeSkill(
  deps: SkillDeps,
  session: Session,
  call: SkillCall,
): Promise<ReplyOf<'planner.invoke'>> {
  const tool = (await surfaceOf(deps, session)).find((t) => t.id === call.skillId);
  if (tool === undefined) throw new UnknownToolError(call.skillId);
  if (call.args === null) throw new BadRequestError('message must hold exactly one data part');
  if (call.pin !== undefined) {
    if (!isRef(call.pin)) throw new BadRequestError('metadata.transition_fn must be a sha256 ref');
    if (call.pin !== tool.transitionFn) throw new TransitionPinMismatchError();
  }
  return deps.rpc.request(
    'planner.invoke',
    {
      surface: 'a2a',
      session,
      toolId: tool.id,
      arguments: call.args,
      taskId: call.taskId,
    },
    { timeoutMs: deps.callDeadlineMs + REPLY_GRACE_MS },
  );
}

/**
 * The session's tool surface, read fresh (`planner.tools.list`, the same function as the card's
 * skills and MCP's tools/list, world-spec §6). Any failure means the call cannot be admitted.
 * @throws ServiceUnavailableError carrying the cause
 */
export async function surfaceOf(deps: SkillDeps, session: Session): Promise<ToolDescriptor[]> {
  try {
    const reply = await deps.rpc.request(
      'planner.tools.list',
      { grants: session.grants, now: (deps.clock ?? Date.now)() },
      { timeoutMs: READ_DEADLINE_MS },
    );
    return reply.tools;
  } catch (cause) {
    throw new ServiceUnavailableError('the registry snapshot failed', { cause });
  }
}
