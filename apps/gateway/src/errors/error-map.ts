/**
 * The one table that turns a WorldError into what a client sees: an HTTP status and REST class
 * on `/v1` (world-spec §5.1), a JSON-RPC code and message on `/mcp` (world-spec §6.3).
 * Services throw typed errors; only this table decides their wire form (CONVENTIONS.md "Errors").
 */
import { InvalidBase64Error, InvalidRefError } from '@world/canonical';
import { BadRequestError, InternalError, WorldError } from '@world/contracts';

/** JSON-RPC codes the gateway answers with (JSON-RPC 2.0 §5.1). */
export const JSONRPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** The fixed MCP host-failure texts (world-spec §6.3). */
export const HOST_FAILURE = {
  failed: 'host callback failed',
  timedOut: 'host callback timed out',
} as const;

/** Fixed REST messages where the service's own text is not for clients. */
export const REST_MESSAGES = {
  timeout: 'the deadline ended before World answered; retry the request',
  unavailable: 'a World service is unavailable; retry the request',
} as const;

/**
 * How MCP reports an error: `params` answers -32602 with the error's message after a prefix
 * (`invalid params: `, none for `unknown tool "<name>"`; the caller's input is at fault, nothing
 * ran); `host` answers -32603 with a fixed host text (the effect may
 * have run); `request` answers -32600 with the error's message (transport-level refusal).
 */
export type McpKind =
  | { kind: 'params'; prefix: string }
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
}

const HOST: McpKind = { kind: 'host', message: HOST_FAILURE.failed };
const HOST_TIMEOUT: McpKind = { kind: 'host', message: HOST_FAILURE.timedOut };
const PARAMS: McpKind = { kind: 'params', prefix: 'invalid params: ' };
const UNKNOWN_TOOL: McpKind = { kind: 'params', prefix: '' };

/**
 * Rows by `errorClass`. REST statuses and classes: world-spec §5.1. MCP: unknown tools and bad
 * parameters are -32602, every host failure -32603 `host callback failed`, deadlines
 * `host callback timed out` (world-spec §6.3). A transport timeout may hide a processed request:
 * it is a Timeout to readers (reads are safe to repeat); the commit route turns it into
 * CommitUncertain itself.
 */
export const ERROR_TABLE: Readonly<Record<string, ErrorRow>> = {
  BadRequest: { status: 400, restClass: 'BadRequest', mcp: PARAMS },
  // MCP answers a malformed header 401 like the other session denials (world-spec §6.1).
  InvalidSession: { status: 400, restClass: 'InvalidSession', mcpStatus: 401, mcp: HOST },
  SessionAbsent: { status: 401, restClass: 'SessionAbsent', mcp: HOST },
  SessionUnknown: { status: 401, restClass: 'SessionUnknown', mcp: HOST },
  SessionExpired: { status: 401, restClass: 'SessionExpired', mcp: HOST },
  NotFound: { status: 404, restClass: 'NotFound', mcp: HOST },
  HeadConflict: { status: 409, restClass: 'HeadConflict', mcp: HOST },
  PayloadTooLarge: { status: 413, restClass: 'PayloadTooLarge', mcp: { kind: 'request' } },
  Internal: {
    status: 500,
    restClass: 'Internal',
    restMessage: new InternalError().message,
    mcp: HOST,
  },
  Timeout: {
    status: 503,
    restClass: 'Timeout',
    restMessage: REST_MESSAGES.timeout,
    mcp: HOST_TIMEOUT,
  },
  TransportTimeout: {
    status: 503,
    restClass: 'Timeout',
    restMessage: REST_MESSAGES.timeout,
    mcp: HOST_TIMEOUT,
  },
  CommitUncertain: { status: 503, restClass: 'CommitUncertain', mcp: HOST },
  Uncertain: { status: 503, restClass: 'CommitUncertain', mcp: HOST },
  LookupIndexUnavailable: { status: 503, restClass: 'LookupIndexUnavailable', mcp: HOST },
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
  DuplicateInvocation: { status: 400, restClass: 'BadRequest', mcp: HOST },
  UnknownTool: { status: 404, restClass: 'NotFound', mcp: UNKNOWN_TOOL },
};

/** The row for anything the table does not name: a 500 that never leaks its cause. */
export const INTERNAL_ROW: ErrorRow = ERROR_TABLE.Internal!;

/**
 * Normalises any thrown value to a WorldError: canonical-encoding refusals (bad refs, bad
 * base64) are the caller's BadRequest; anything untyped is Internal (its cause is logged by the
 * caller, never sent).
 */
export function asWorldError(err: unknown): WorldError {
  if (err instanceof WorldError) return err;
  if (err instanceof InvalidRefError || err instanceof InvalidBase64Error)
    return new BadRequestError(err.message);
  return new InternalError();
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

/** The JSON-RPC error of an error on `/mcp` (world-spec §6.3). */
export function mcpErrorOf(err: WorldError): { code: number; message: string; host: boolean } {
  const row = rowOf(err);
  switch (row.mcp.kind) {
    case 'params':
      return {
        code: JSONRPC.invalidParams,
        message: `${row.mcp.prefix}${err.message}`,
        host: false,
      };
    case 'request':
      return { code: JSONRPC.invalidRequest, message: err.message, host: false };
    case 'host':
      return { code: JSONRPC.internalError, message: row.mcp.message, host: true };
  }
}
