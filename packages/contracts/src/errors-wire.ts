/**
 * The wire codec of WorldError: a serialized error (WireError) back into its typed class on the
 * receiving side of NATS or the in-process transport (split from errors.ts, which holds the classes).
 */
import {
  BadRequestError,
  CallerGoneError,
  CallCancelledError,
  ClaimGivenUpError,
  CommitUncertainError,
  DeadlineExceededError,
  DuplicateInvocationError,
  EffectsUnrecordedError,
  ForbiddenError,
  HeadConflictError,
  InternalError,
  InvalidSessionError,
  InvocationInFlightError,
  InvocationNotCommittedError,
  LeaseLostError,
  NoHandlerError,
  NotFoundError,
  PayloadTooLargeError,
  PlanLawError,
  ProjectionDeadlineExceededError,
  ProjectionUnavailableError,
  ServiceUnavailableError,
  SessionAbsentError,
  SessionExpiredError,
  SessionUnknownError,
  ShuttingDownError,
  StoredObjectCorruptError,
  TransitionPinMismatchError,
  TransportTimeoutError,
  UncertainError,
  UnknownToolError,
  WorldError,
  type WireError,
} from './errors.js';

type Restorer = (message: string, details: Record<string, unknown>) => WorldError;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const RESTORERS: Record<string, Restorer> = {
  BadRequest: (m) => new BadRequestError(m),
  InvalidSession: (m) => new InvalidSessionError(m),
  SessionAbsent: (m) => new SessionAbsentError(m),
  SessionUnknown: (m) => new SessionUnknownError(m),
  SessionExpired: (m) => new SessionExpiredError(m),
  NotFound: (m) => new NotFoundError(m),
  Forbidden: (m) => new ForbiddenError(m),
  StoredObjectCorrupt: (m, d) => new StoredObjectCorruptError(str(d.problem), m),
  HeadConflict: (m, d) => new HeadConflictError(str(d.observedHead), str(d.selectedHead), m),
  PayloadTooLarge: (m) => new PayloadTooLargeError(m),
  Internal: (m) => new InternalError(m),
  Timeout: (m) => new DeadlineExceededError(m),
  CommitUncertain: (m) => new CommitUncertainError(m),
  ProjectionUnavailable: (m) => new ProjectionUnavailableError(m),
  ProjectionDeadlineExceeded: (m) => new ProjectionDeadlineExceededError(m),
  Unavailable: (m) => new ServiceUnavailableError(m),
  ShuttingDown: (m) => new ShuttingDownError(m),
  TransportTimeout: (m) => new TransportTimeoutError(m),
  EffectsUnrecorded: (_m, d) =>
    new EffectsUnrecordedError(
      str(d.invocationId),
      Array.isArray(d.effectRecords) ? d.effectRecords.map(str) : [],
      str(d.cause),
    ),
  Uncertain: (m) => new UncertainError(m),
  LeaseLost: (m, d) => new LeaseLostError(str(d.episodeId), Number(d.fence), m),
  CallerGone: (m, d) => new CallerGoneError(str(d.episodeId), str(d.caller), m),
  CallCancelled: (m, d) => new CallCancelledError(str(d.invocationId), m),
  DuplicateInvocation: (m, d) => new DuplicateInvocationError(str(d.invocationId), m),
  InvocationInFlight: (m) => new InvocationInFlightError(m),
  InvocationNotCommitted: (m) => new InvocationNotCommittedError(m),
  ClaimGivenUp: (m, d) => new ClaimGivenUpError(str(d.invocationId), m),
  UnknownTool: (m, d) => new UnknownToolError(str(d.toolId), m),
  TransitionPinMismatch: (m) => new TransitionPinMismatchError(m),
  NoHandler: (m) => new NoHandlerError(m),
  PlanLaw: (m) => new PlanLawError(m),
};

/**
 * Restores the typed error a service threw from its wire form; an unknown class becomes an
 * InternalError (fail closed: never guess a more specific meaning).
 */
export function errorFromWire(wire: WireError): WorldError {
  const restore = RESTORERS[wire.errorClass];
  if (restore === undefined) return new InternalError();
  return restore(wire.message, wire.details ?? {});
}

/** True when a value has the shape of a WireError. */
export function isWireError(value: unknown): value is WireError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as WireError).errorClass === 'string' &&
    typeof (value as WireError).message === 'string'
  );
}
