/**
 * The error classes that cross the wire (world-spec §5.1 REST classes, plus the broker's and
 * coordinator's typed failures). Services throw these; only the gateway maps them to HTTP
 * statuses or JSON-RPC codes (CONVENTIONS.md "Errors"). Never match on message text: match on
 * `errorClass` or `instanceof`.
 */

/** The serialized form of a WorldError on NATS and the in-process transport. */
export interface WireError {
  errorClass: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Base class: a client-facing message, a stable class name, optional structured details. */
export abstract class WorldError extends Error {
  abstract readonly errorClass: string;

  /** Structured fields that travel with the error (refs, heads…). */
  details(): Record<string, unknown> | undefined {
    return undefined;
  }

  /** The wire form; `errorFromWire` restores the same class. */
  toWire(): WireError {
    const details = this.details();
    return details === undefined
      ? { errorClass: this.errorClass, message: this.message }
      : { errorClass: this.errorClass, message: this.message, details };
  }
}

/** Fixed client-facing texts of world-spec §6.1 and §6.5. */
export const MESSAGES = {
  sessionAbsent: 'session credential is absent: send Authorization: Bearer <session-credential>',
  sessionMalformed: 'malformed Authorization header: expected Bearer <64-hex-credential>',
  sessionUnknown: 'unknown session credential',
  sessionExpired: 'session credential has expired',
  commitSessionAbsent:
    'a session credential is required: no Authorization Bearer header was present',
  internal: 'internal store failure',
  shuttingDown:
    'the gateway is shutting down and takes no new requests; send it to another replica',
  effectsUnrecordedPrefix:
    'effects were requested but the invocation was not confirmed committed; effect records:',
  uncertain: 'invocation outcome is not confirmed; resend the same task id',
  notCommitted: 'invocation was not committed; send a new task id',
  taskIdUsed: 'task id already used in this session',
  noHandler: 'transition declares an effect this daemon has no handler for',
  deadline: 'invocation exceeded its deadline',
} as const;

/** 400: malformed client input; the message names what. */
export class BadRequestError extends WorldError {
  readonly errorClass = 'BadRequest';
}

/** 400: a malformed Authorization header. */
export class InvalidSessionError extends WorldError {
  readonly errorClass = 'InvalidSession';
  constructor(message: string = MESSAGES.sessionMalformed) {
    super(message);
  }
}

/** 401: no session credential was sent. */
export class SessionAbsentError extends WorldError {
  readonly errorClass = 'SessionAbsent';
  constructor(message: string = MESSAGES.sessionAbsent) {
    super(message);
  }
}

/** 401: a credential that was never minted, or was revoked. */
export class SessionUnknownError extends WorldError {
  readonly errorClass = 'SessionUnknown';
  constructor(message: string = MESSAGES.sessionUnknown) {
    super(message);
  }
}

/** 401: a credential past its expiry. */
export class SessionExpiredError extends WorldError {
  readonly errorClass = 'SessionExpired';
  constructor(message: string = MESSAGES.sessionExpired) {
    super(message);
  }
}

/** 404: the thing asked for is absent. */
export class NotFoundError extends WorldError {
  readonly errorClass = 'NotFound';
}

/**
 * 403: the credential is valid but does not grant this (a session without a `World.Commit` grant
 * on POST /v1/commit; DESIGN.md §3 "Who may read and write what").
 */
export class ForbiddenError extends WorldError {
  readonly errorClass = 'Forbidden';
}

/** 409: a REST commit observed a head that is no longer selected (world-spec §5.10). */
export class HeadConflictError extends WorldError {
  readonly errorClass = 'HeadConflict';
  constructor(
    readonly observedHead: string,
    readonly selectedHead: string,
    message = 'observedHead is not the selected head',
  ) {
    super(message);
  }
  override details() {
    return { observedHead: this.observedHead, selectedHead: this.selectedHead };
  }
}

/** 413: a body over its route's limit. */
export class PayloadTooLargeError extends WorldError {
  readonly errorClass = 'PayloadTooLarge';
}

/** 500: always `internal store failure`; the cause goes to the operator log only. */
export class InternalError extends WorldError {
  readonly errorClass = 'Internal';
  constructor(message: string = MESSAGES.internal) {
    super(message);
  }
}

/**
 * Stored bytes that do not hash to the ref (or entry hash, or world ref) they are stored under:
 * altered in storage, never served as valid (DESIGN.md §3; world-internals §2.2 step 5.4). The
 * message names what was read and what its bytes hash to; the cause is logged for the operator
 * by the service that read it.
 */
export class StoredObjectCorruptError extends WorldError {
  readonly errorClass = 'StoredObjectCorrupt';
  constructor(
    readonly problem: string,
    message = `stored object corrupt: ${problem}`,
  ) {
    super(message);
  }
  override details() {
    return { problem: this.problem };
  }
}

/** 503 Timeout: a deadline ended before the durable step; safe to resend. */
export class DeadlineExceededError extends WorldError {
  readonly errorClass = 'Timeout';
}

/** 503: a commit's outcome is unknown; reconcile before resending (world-spec §5.10). */
export class CommitUncertainError extends WorldError {
  readonly errorClass = 'CommitUncertain';
}

/** 503: the agent card's registry read failed. */
export class ProjectionUnavailableError extends WorldError {
  readonly errorClass = 'ProjectionUnavailable';
  constructor(message = 'the projection read failed; retry the request') {
    super(message);
  }
}

/** 504: the agent card's bounded read deadline ended. */
export class ProjectionDeadlineExceededError extends WorldError {
  readonly errorClass = 'ProjectionDeadlineExceeded';
  constructor(message = 'the projection read exceeded its bounded deadline') {
    super(message);
  }
}

/** 503: a service did not answer (no responder, or the transport timed out before a reply). */
export class ServiceUnavailableError extends WorldError {
  readonly errorClass = 'Unavailable';
}

/**
 * 503: a gateway replica that began shutting down refuses every new request, also on a
 * kept-alive connection, and closes that connection (world-spec §7.2 drain; README "Operations").
 */
export class ShuttingDownError extends WorldError {
  readonly errorClass = 'ShuttingDown';
  constructor(message: string = MESSAGES.shuttingDown) {
    super(message);
  }
}

/**
 * A request whose reply did not arrive before the client's timeout: unlike DeadlineExceeded
 * (raised by the service itself before any durable step), the request may have been processed.
 */
export class TransportTimeoutError extends WorldError {
  readonly errorClass = 'TransportTimeout';
}

/**
 * The effect may have run (its records are durable) but the invocation was not committed
 * (world-spec §4.5). Never retried. The message lists every effect record ref.
 */
export class EffectsUnrecordedError extends WorldError {
  readonly errorClass = 'EffectsUnrecorded';
  constructor(
    readonly invocationId: string,
    readonly effectRecords: string[],
    readonly causeText: string,
  ) {
    super(
      effectRecords.length > 0
        ? `${MESSAGES.effectsUnrecordedPrefix} ${effectRecords.join(' ')}`
        : `${MESSAGES.effectsUnrecordedPrefix} (none recorded yet)`,
    );
  }
  override details() {
    return {
      invocationId: this.invocationId,
      effectRecords: this.effectRecords,
      cause: this.causeText,
    };
  }
}

/** The outcome of a durable step is unknown; resend the same invocation id to reconcile. */
export class UncertainError extends WorldError {
  readonly errorClass = 'Uncertain';
  constructor(message: string = MESSAGES.uncertain) {
    super(message);
  }
}

/** A stale fencing token: another holder owns the episode's lease; nothing was written. */
export class LeaseLostError extends WorldError {
  readonly errorClass = 'LeaseLost';
  constructor(
    readonly episodeId: string,
    readonly fence: number,
    message = `lease of episode "${episodeId}" is not held with fence ${fence}`,
  ) {
    super(message);
  }
  override details() {
    return { episodeId: this.episodeId, fence: this.fence };
  }
}

/**
 * A call that waited for its episode's lease, dropped before it was granted because its planner
 * instance did not answer its liveness subject (DESIGN.md §2): nothing was written, nothing
 * spent; safe to resend.
 */
export class CallerGoneError extends WorldError {
  readonly errorClass = 'CallerGone';
  constructor(
    readonly episodeId: string,
    readonly caller: string,
    message = `the planner instance ${caller} waiting for the lease of episode "${episodeId}" did not answer; the call was dropped and nothing was written`,
  ) {
    super(message);
  }
  override details() {
    return { episodeId: this.episodeId, caller: this.caller };
  }
}

/**
 * A call its client cancelled (MCP `notifications/cancelled`, or the request's stream closed)
 * that was stopped before its effect was handed to the broker, or while it waited there for the
 * episode lease: no intent, no spend, no record, no log entry (world-internals §5.5 "before
 * intent → never dispatched"). The client is sent no response (MCP basic/utilities/cancellation);
 * a resend of the same task id runs the call afresh.
 */
export class CallCancelledError extends WorldError {
  readonly errorClass = 'CallCancelled';
  constructor(
    readonly invocationId: string,
    message = `invocation ${invocationId} was cancelled by its client before its effect was handed to the broker; nothing was written`,
  ) {
    super(message);
  }
  override details() {
    return { invocationId: this.invocationId };
  }
}

/** The same invocation id was used for different content (world-internals §5.3). */
export class DuplicateInvocationError extends WorldError {
  readonly errorClass = 'DuplicateInvocation';
  constructor(
    readonly invocationId: string,
    message = `invocation id "${invocationId}" was already used for different content`,
  ) {
    super(message);
  }
  override details() {
    return { invocationId: this.invocationId };
  }
}

/**
 * An idempotent invocation id used for another call (other arguments), or whose first attempt is
 * still in flight and has not requested its effect yet (world-spec §4.6); from the effect's
 * intent on, a resend is answered UncertainError instead (InvocationClaims.claim).
 */
export class InvocationInFlightError extends WorldError {
  readonly errorClass = 'InvocationInFlight';
  constructor(message: string = MESSAGES.taskIdUsed) {
    super(message);
  }
}

/**
 * A tool commit whose claim is no longer its own live claim (the planner gave it up, it lapsed,
 * or a resend reclaimed it): nothing was written, and this commit can never land (DESIGN.md §2).
 */
export class ClaimGivenUpError extends WorldError {
  readonly errorClass = 'ClaimGivenUp';
  constructor(
    readonly invocationId: string,
    message = `the claim of invocation "${invocationId}" was given up or lapsed; the commit is refused`,
  ) {
    super(message);
  }
  override details() {
    return { invocationId: this.invocationId };
  }
}

/** An idempotent invocation known not to have committed (world-spec §6.5). */
export class InvocationNotCommittedError extends WorldError {
  readonly errorClass = 'InvocationNotCommitted';
  constructor(message: string = MESSAGES.notCommitted) {
    super(message);
  }
}

/** A tool outside the session's surface (MCP -32602 `unknown tool "<name>"`, A2A `not authorized`). */
export class UnknownToolError extends WorldError {
  readonly errorClass = 'UnknownTool';
  constructor(
    readonly toolId: string,
    message = `unknown tool "${toolId}"`,
  ) {
    super(message);
  }
  override details() {
    return { toolId: this.toolId };
  }
}

/**
 * The caller pinned another transition source than the registered one (A2A
 * `metadata.transition_fn`, world-spec §6.5: -32602 `proposal does not match the registered
 * transition`). The planner checks it right after admitting the tool.
 */
export class TransitionPinMismatchError extends WorldError {
  readonly errorClass = 'TransitionPinMismatch';
  constructor(message = 'proposal does not match the registered transition') {
    super(message);
  }
}

/** Rule R8: the plan asks for an effect this deployment has no handler for (world-spec §2.6). */
export class NoHandlerError extends WorldError {
  readonly errorClass = 'NoHandler';
  constructor(message: string = MESSAGES.noHandler) {
    super(message);
  }
}

/** A transition's plan or finish output broke a plan law (world-internals §5.4). */
export class PlanLawError extends WorldError {
  readonly errorClass = 'PlanLaw';
}
