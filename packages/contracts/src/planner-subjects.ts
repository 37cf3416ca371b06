/**
 * The planner's subjects' request and reply schemas (tools list, invoke, runtime identity, the
 * per-instance liveness subject), listed in the subject table of subjects.ts (DESIGN.md §1).
 */
import { z } from 'zod';
import { BadRequestError } from './errors.js';
import {
  CallerIdSchema,
  EpochMs,
  NonNegInt,
  RefSchema,
  SessionGrantSchema,
  SessionSchema,
  SurfaceSchema,
  TaskIdSchema,
  ToolDescriptorSchema,
} from './schemas.js';

const JsonObject = z.record(z.string(), z.unknown());

export const ToolsListRequest = z.object({ grants: z.array(SessionGrantSchema), now: EpochMs });
export const ToolsListReply = z.object({ tools: z.array(ToolDescriptorSchema) });

/** A gateway's handle for one in-flight call it may cancel: a random UUID. */
export const CallIdSchema = z.uuid();

export const InvokeRequest = z.object({
  surface: SurfaceSchema,
  session: SessionSchema,
  toolId: z.string().min(1),
  arguments: z.unknown(),
  /** the caller's idempotency key (A2A task id, MCP `world/taskId`); absent = a fresh call */
  taskId: TaskIdSchema.optional(),
  /**
   * the transition source the caller pins (A2A `metadata.transition_fn`): the call is refused
   * with TransitionPinMismatch unless it is the registered tool's (world-spec §6.5)
   */
  transitionFn: RefSchema.optional(),
  /**
   * the caller's handle for cancelling this call: a `planner.call.cancelled` naming it stops the
   * call if it comes before the call's effect is handed to the broker (or, for a plan refusal,
   * before its commit is sent), or while the broker waits for the episode lease (MCP
   * cancellation; README "Cancellation")
   */
  callId: CallIdSchema.optional(),
});
export const InvokeReply = z.object({
  invocationId: z.string(),
  /** the committed output object (tool fields + world block) */
  output: JsonObject,
  /** its exact committed bytes, base64 (what `content[0].text` and resends carry) */
  outputBytes: z.string(),
  outputRef: RefSchema,
  entryIndex: NonNegInt,
  /** the committed entry's hash: with entryIndex, what a tool result cites of the log */
  entryHash: RefSchema,
  worldRef: RefSchema,
  replayed: z.boolean(),
});

/**
 * The receipt of a `planner.invoke` (SubjectContract.receipt): the planner instance that took
 * the request names itself before it claims or runs anything, so the waiting gateway watches
 * that instance's liveness subject (callerSubject) for this request, and no other (DESIGN.md §2;
 * world-internals §5.5).
 */
export const InvokeReceipt = z.object({ caller: CallerIdSchema });

/** The planner's runtime identity, served by GET /v1/health (world-spec §5.2). */
export const PlannerInfoReply = z.object({
  /** ref of the planner's runtime identity: every coordinator entry's header.interpreter */
  interpreter: RefSchema,
  /** human text of that identity (package version, Node version) */
  interpreterVersion: z.string(),
  semanticsEpoch: NonNegInt,
});

/**
 * What the broker asks a planner instance on its liveness subject: optionally the invocation
 * that waits for the lease, so the planner can say it was cancelled meanwhile.
 */
export const PlannerAliveRequest = z
  .object({ invocationId: z.string().min(1).optional() })
  .strict();
/**
 * What a planner instance answers on its liveness subject: its own caller id, and `cancelled`
 * when the asked invocation's client cancelled it (the broker then drops the waiting call with
 * CallCancelledError, nothing written).
 */
export const PlannerAliveReply = z.object({
  caller: CallerIdSchema,
  cancelled: z.boolean().optional(),
});

/**
 * The liveness subject of one planner instance: `planner.alive.<caller>` (on the wire
 * `<prefix>.planner.alive.<caller>`). Only that instance subscribes to it, for as long as its
 * connection lives, so "no responders" or no answer means the instance is gone (DESIGN.md §2).
 * Its contract is `planner.alive`'s; both transports route a subject by its text, so the name
 * is typed as the contract's.
 * @throws BadRequestError when `caller` is not a caller id (CallerIdSchema)
 */
export function callerSubject(caller: string): 'planner.alive' {
  if (!CallerIdSchema.safeParse(caller).success)
    throw new BadRequestError(`caller id "${caller}" is not 1 to 64 lowercase hex characters`);
  return `planner.alive.${caller}` as 'planner.alive';
}
