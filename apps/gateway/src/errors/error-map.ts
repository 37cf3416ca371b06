/**
 * The one table that turns a WorldError into what a client sees: an HTTP status and REST class
 * on `/v1` (world-spec §5.1), a JSON-RPC code and message on `/mcp` (world-spec §6.3).
 * Services throw typed errors; only this table decides their wire form (CONVENTIONS.md "Errors").
 */
import {
  EffectsUnrecordedError,
  InternalError,
  MESSAGES,
  typedErrorOf,
  type WorldError,
} from '@world/contracts';

/** JSON-RPC codes the gateway answers with (JSON-RPC 2.0 §5.1). */
export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** The fixed MCP host-failure texts (world-spec §6.3). */
const HOST_FAILURE = {
  failed: 'host callback failed',
  timedOut: 'host callback timed out',
  /** world-internals §7.1's fixed text for cancellation; MCP sends no response at all for it */
  canceled: 'host callback canceled',
} as const;

/** Fixed REST messages where the service's own text is not for clients. */
const REST_MESSAGES = {
  timeout: 'the deadline ended before World answered; retry the request',
  unavailable: 'a World service is unavailable; retry the request',
} as const;

/**
 * How MCP reports an error: `params` answers -32602 with the error's message after a prefix
 * (`invalid params: `, none for `unknown tool "<name>"`; the caller's input is at fault, nothing
 * ran); `host` answers -32603 with a fixed host text (the effect may
 * have run; `message` replaces the error's own words); `request` answers -32600 with the error's message (transport-level refusal).
 */
type McpKind =
  | { kind: 'params'; prefix: string; message?: string }
  | { kind: 'request' }
  | { kind: 'host'; message: (typeof HOST_FAILURE)[keyof typeof HOST_FAILURE] };

/** One row of the table. */
export interface ErrorRow {
  /** HTTP status on REST routes */
  status: number;
  /** `error.class` of the REST envelope */
  restClass: string;
  /** a fixed REST message, or undefined to pass the error's own message */
  restMessage?: string;
  /** the HTTP status when the error ends an MCP POST before the protocol starts (default `status`) */
  mcpStatus?: number;
  mcp: McpKind;
  /** how A2A answers it (world-spec §6.5); absent: -32603 `transition invocation is not available…` */
  a2a?: A2aKind;
  /**
   * How a keyed call (A2A task id, MCP `world/taskId`) is told what became of its invocation
   * when the error leaves that unknown — the same on A2A and MCP, since the caller acts on it by
   * resending the same task id; absent: the error says nothing about the invocation's outcome
   */
  keyedOutcome?: A2aKind;
}

/** A2A texts of world-spec §6.5 beyond the shared MESSAGES; none interpolates request content. */
export const A2A_MESSAGES = {
  invalidRequest: 'invalid JSON-RPC request',
  methodNotFound: 'method not found',
  invalidParams: 'invalid params',
  notAuthorized: 'not authorized',
  pinMismatch: 'proposal does not match the registered transition',
  notAvailable: 'transition invocation is not available in this daemon',
  executionFailed: 'transition execution failed',
} as const;

/** The JSON-RPC code of A2A session denials (world-spec §6.1). */
export const A2A_SESSION_DENIED = -32001;

/**
 * The JSON-RPC code of a session denial on the A2A 1.0 endpoint `/a2a/jsonrpc`. A2A 1.0 gives
 * -32001 to TaskNotFound (spec error table; ecosystem.md §2.3), which `@a2a-js/sdk` 1.3.0 raises
 * as `TaskNotFoundError`; its table has no authentication code at all, and its one
 * authentication hook (`AuthenticationHandler.shouldRetryWithHeaders`) reads the HTTP 401. So
 * the denial is HTTP 401 + `WWW-Authenticate: Bearer` with -32000, the JSON-RPC 2.0 §5.1
 * implementation-defined server error outside A2A's -32001…-32009, which the SDK surfaces as a
 * plain `JsonRpcTransportError` carrying the text — never as a missing task, which would send
 * the client after a task that exists.
 */
export const A2A_V1_UNAUTHENTICATED = -32000;

/**
 * How A2A answers an error: a JSON-RPC code with a fixed message (`message` undefined only for
 * EffectsUnrecorded, whose message is the record list); `closeConnection` when the invocation
 * deadline ended the request (world-spec §6.5 `Connection: close`).
 */
interface A2aKind {
  code: number;
  message?: string;
  closeConnection?: boolean;
}

const A2A_INVALID_PARAMS: A2aKind = {
  code: JSONRPC.invalidParams,
  message: A2A_MESSAGES.invalidParams,
};
const A2A_TASK_ID_USED: A2aKind = { code: JSONRPC.invalidParams, message: MESSAGES.taskIdUsed };
const A2A_DEADLINE: A2aKind = {
  code: JSONRPC.internalError,
  message: MESSAGES.deadline,
  closeConnection: true,
};
const A2A_UNCERTAIN: A2aKind = { code: JSONRPC.internalError, message: MESSAGES.uncertain };
/**
 * The gateway stopped waiting for a keyed call's planner at the deadline: the planner may still
 * run the call and commit it (a stopped, not dead, process), so the outcome is unknown — `resend
 * the same task id` (DESIGN.md §2; world-internals §5.5, §12 #24), never the reference's deadline
 * text, which a resend after a late commit would contradict. The deadline still ended the
 * request, so A2A closes the connection as for the deadline (world-spec §6.5).
 */
const A2A_UNCERTAIN_AT_DEADLINE: A2aKind = { ...A2A_UNCERTAIN, closeConnection: true };
/** Anything the table does not name: the cause goes to the operator log only (world-spec §6.5). */
const A2A_NOT_AVAILABLE: A2aKind = {
  code: JSONRPC.internalError,
  message: A2A_MESSAGES.notAvailable,
};

const HOST: McpKind = { kind: 'host', message: HOST_FAILURE.failed };

/** A row for a coordinator outcome: internal to REST and MCP, distinct on A2A. */
function coordinatorRow(a2a: A2aKind): ErrorRow {
  return { status: 500, restClass: 'Internal', restMessage: MESSAGES.internal, mcp: HOST, a2a };
}
const HOST_TIMEOUT: McpKind = { kind: 'host', message: HOST_FAILURE.timedOut };
const PARAMS: McpKind = { kind: 'params', prefix: 'invalid params: ' };
const UNKNOWN_TOOL: McpKind = { kind: 'params', prefix: '' };
/**
 * A `world/taskId` reused for other arguments, or while its first call is in flight: the caller's
 * input is at fault and nothing ran, so MCP answers it as A2A does (-32602: both surfaces give
 * a keyed call the same exactly-once guarantees, README "Exactly-once over MCP"), not as a host
 * failure that may have run something.
 */
const MCP_TASK_ID_USED: McpKind = { kind: 'params', prefix: '', message: MESSAGES.taskIdUsed };

/**
 * Rows by `errorClass`. REST statuses and classes: world-spec §5.1. MCP: unknown tools and bad
 * parameters are -32602, every host failure -32603 `host callback failed`, deadlines
 * `host callback timed out` (world-spec §6.3). A transport timeout may hide a processed request:
 * it is a Timeout to readers (reads are safe to repeat); the commit route turns it into
 * CommitUncertain itself.
 */
const ERROR_TABLE: Readonly<Record<string, ErrorRow>> = {
  BadRequest: { status: 400, restClass: 'BadRequest', mcp: PARAMS, a2a: A2A_INVALID_PARAMS },
  // MCP answers a malformed header 401 like the other session denials (world-spec §6.1).
  InvalidSession: {
    status: 400,
    restClass: 'InvalidSession',
    mcpStatus: 401,
    mcp: HOST,
    a2a: { code: JSONRPC.invalidRequest, message: MESSAGES.sessionMalformed },
  },
  SessionAbsent: {
    status: 401,
    restClass: 'SessionAbsent',
    mcp: HOST,
    a2a: { code: A2A_SESSION_DENIED, message: MESSAGES.sessionAbsent },
  },
  SessionUnknown: {
    status: 401,
    restClass: 'SessionUnknown',
    mcp: HOST,
    a2a: { code: A2A_SESSION_DENIED, message: MESSAGES.sessionUnknown },
  },
  SessionExpired: {
    status: 401,
    restClass: 'SessionExpired',
    mcp: HOST,
    a2a: { code: A2A_SESSION_DENIED, message: MESSAGES.sessionExpired },
  },
  // A valid credential that does not grant the route (POST /v1/commit without World.Commit).
  Forbidden: {
    status: 403,
    restClass: 'Forbidden',
    mcp: HOST,
    a2a: { code: JSONRPC.invalidParams, message: A2A_MESSAGES.notAuthorized },
  },
  NotFound: { status: 404, restClass: 'NotFound', mcp: HOST },
  HeadConflict: { status: 409, restClass: 'HeadConflict', mcp: HOST },
  PayloadTooLarge: {
    status: 413,
    restClass: 'PayloadTooLarge',
    mcp: { kind: 'request' },
    a2a: { code: JSONRPC.invalidRequest, message: A2A_MESSAGES.invalidRequest },
  },
  Internal: {
    status: 500,
    restClass: 'Internal',
    restMessage: new InternalError().message,
    mcp: HOST,
  },
  // Stored bytes that do not hash to their ref are never served (DESIGN.md §3): REST names what
  // was corrupt; MCP and A2A answer as for any integrity failure (world-spec §6.3, §6.5: the
  // cause goes to the operator log).
  StoredObjectCorrupt: { status: 500, restClass: 'StoredObjectCorrupt', mcp: HOST },
  Timeout: {
    status: 503,
    restClass: 'Timeout',
    restMessage: REST_MESSAGES.timeout,
    mcp: HOST_TIMEOUT,
    a2a: A2A_DEADLINE,
  },
  TransportTimeout: {
    status: 503,
    restClass: 'Timeout',
    restMessage: REST_MESSAGES.timeout,
    mcp: HOST_TIMEOUT,
    a2a: A2A_DEADLINE,
    keyedOutcome: A2A_UNCERTAIN_AT_DEADLINE,
  },
  // A call dropped at the lease because its planner looked gone: nothing ran, safe to resend.
  CallerGone: {
    status: 503,
    restClass: 'Timeout',
    restMessage: REST_MESSAGES.timeout,
    mcp: HOST_TIMEOUT,
    a2a: A2A_DEADLINE,
  },
  // A call its client cancelled before the hand-off: nothing ran. MCP answers nothing for a
  // cancelled request (McpExchange drops it); the row is what any other edge would show.
  CallCancelled: {
    status: 503,
    restClass: 'Unavailable',
    restMessage: REST_MESSAGES.unavailable,
    mcp: { kind: 'host', message: HOST_FAILURE.canceled },
  },
  CommitUncertain: { status: 503, restClass: 'CommitUncertain', mcp: HOST, a2a: A2A_UNCERTAIN },
  Uncertain: {
    status: 503,
    restClass: 'CommitUncertain',
    mcp: HOST,
    a2a: A2A_UNCERTAIN,
    keyedOutcome: A2A_UNCERTAIN,
  },
  ProjectionUnavailable: { status: 503, restClass: 'ProjectionUnavailable', mcp: HOST },
  ProjectionDeadlineExceeded: {
    status: 504,
    restClass: 'ProjectionDeadlineExceeded',
    mcp: HOST_TIMEOUT,
  },
  Unavailable: {
    status: 503,
    restClass: 'Unavailable',
    restMessage: REST_MESSAGES.unavailable,
    mcp: HOST,
  },
  ShuttingDown: { status: 503, restClass: 'ShuttingDown', mcp: HOST },
  DuplicateInvocation: {
    status: 400,
    restClass: 'BadRequest',
    mcp: MCP_TASK_ID_USED,
    a2a: A2A_TASK_ID_USED,
  },
  UnknownTool: {
    status: 404,
    restClass: 'NotFound',
    mcp: UNKNOWN_TOOL,
    a2a: { code: JSONRPC.invalidParams, message: A2A_MESSAGES.notAuthorized },
  },
  // The coordinator's own outcomes: REST and MCP answer them like any internal failure.
  InvocationInFlight: { ...coordinatorRow(A2A_TASK_ID_USED), mcp: MCP_TASK_ID_USED },
  InvocationNotCommitted: coordinatorRow({
    code: JSONRPC.internalError,
    message: MESSAGES.notCommitted,
  }),
  NoHandler: coordinatorRow({ code: JSONRPC.internalError, message: MESSAGES.noHandler }),
  PlanLaw: coordinatorRow({ code: JSONRPC.internalError, message: A2A_MESSAGES.executionFailed }),
  // Its message is the record list (world-spec §4.5).
  EffectsUnrecorded: coordinatorRow({ code: JSONRPC.internalError }),
  /** A2A only: the `transition_fn` pin names another source than the registered one (world-spec §6.5) */
  TransitionPinMismatch: {
    status: 400,
    restClass: 'BadRequest',
    mcp: PARAMS,
    a2a: { code: JSONRPC.invalidParams, message: A2A_MESSAGES.pinMismatch },
  },
};

/** The row for anything the table does not name: a 500 that never leaks its cause. */
const INTERNAL_ROW: ErrorRow = ERROR_TABLE.Internal!;

/**
 * Any thrown value as the WorldError the table maps (typedErrorOf); anything untyped is Internal
 * (its cause is logged by the caller, never sent).
 */
export function asWorldError(err: unknown): WorldError {
  return typedErrorOf(err) ?? new InternalError();
}

/** The table row of an error (Internal for unknown classes and untyped values). */
export function rowOf(err: WorldError): ErrorRow {
  return ERROR_TABLE[err.errorClass] ?? INTERNAL_ROW;
}

/** The REST envelope `{"error":{"class","message"[,"observedHead","selectedHead"]}}` (world-spec §5.1). */
export interface RestErrorBody {
  error: { class: string; message: string; observedHead?: string; selectedHead?: string };
}

/**
 * The HTTP status and REST envelope of an error. HeadConflict carries both heads inside the
 * error object (world-spec §5.1, §11 scenario 4).
 */
export function restErrorOf(err: WorldError): { status: number; body: RestErrorBody } {
  const row = rowOf(err);
  const body: RestErrorBody = {
    error: { class: row.restClass, message: row.restMessage ?? err.message },
  };
  if (err.errorClass === 'HeadConflict') {
    const details = err.details() as { observedHead: string; selectedHead: string };
    body.error.observedHead = details.observedHead;
    body.error.selectedHead = details.selectedHead;
  }
  return { status: row.status, body };
}

/**
 * The JSON-RPC error of an error on `/mcp` (world-spec §6.3). A keyed call (`world/taskId`) is
 * told what became of its invocation as A2A is (README "Exactly-once over MCP"; world-spec
 * §4.5, §6.5): EffectsUnrecorded answers -32603 with its record list, and an error that leaves
 * the outcome unknown (a row's `keyedOutcome`: Uncertain, or the deadline ending the wait for
 * the planner) -32603 `invocation outcome is not confirmed; resend the same task id`, since the
 * caller can act on them by resending that id; an unkeyed call gets `host callback failed` for
 * EffectsUnrecorded and Uncertain and `host callback timed out` at the deadline.
 * @param keyed the call carries `_meta["world/taskId"]`
 */
export function mcpErrorOf(
  err: WorldError,
  keyed = false,
): { code: number; message: string; host: boolean } {
  if (keyed && (err instanceof EffectsUnrecordedError || rowOf(err).keyedOutcome !== undefined)) {
    const { code, message } = a2aErrorOf(err, true);
    return { code, message, host: true };
  }
  const row = rowOf(err);
  switch (row.mcp.kind) {
    case 'params':
      return {
        code: JSONRPC.invalidParams,
        message: `${row.mcp.prefix}${row.mcp.message ?? err.message}`,
        host: false,
      };
    case 'request':
      return { code: JSONRPC.invalidRequest, message: err.message, host: false };
    case 'host':
      return { code: JSONRPC.internalError, message: row.mcp.message, host: true };
  }
}

/** A JSON-RPC error as A2A answers it (world-spec §6.5). */
export interface A2aError {
  code: number;
  message: string;
  /** answer with `Connection: close` (the invocation deadline ended the request) */
  closeConnection: boolean;
  /** a failure in the host (-32603): its cause belongs in the operator log */
  host: boolean;
}

/**
 * The A2A JSON-RPC error of an error (world-spec §6.5 table): EffectsUnrecorded is checked first,
 * whatever else is true, and answers -32603 with its record list; every other message is a fixed
 * text of the table, never the error's own words; anything the table does not name is -32603
 * `transition invocation is not available in this daemon`. The failure of a tool call (keyed by
 * its task id) whose error leaves its outcome unknown answers the row's `keyedOutcome`: the
 * deadline ending the wait for its planner is `invocation outcome is not confirmed; resend the
 * same task id` (with `Connection: close`), not `invocation exceeded its deadline`.
 * @param keyed the error ended a tool call with a task id (not a read, a session lookup…)
 */
export function a2aErrorOf(err: WorldError, keyed = false): A2aError {
  if (err instanceof EffectsUnrecordedError) {
    return {
      code: JSONRPC.internalError,
      message: err.message,
      closeConnection: false,
      host: true,
    };
  }
  const row = rowOf(err);
  const kind = (keyed ? row.keyedOutcome : undefined) ?? row.a2a ?? A2A_NOT_AVAILABLE;
  return {
    code: kind.code,
    message: kind.message ?? A2A_NOT_AVAILABLE.message!,
    closeConnection: kind.closeConnection ?? false,
    host: kind.code === JSONRPC.internalError,
  };
}
