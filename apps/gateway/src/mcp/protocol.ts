/**
 * The transport rules of `POST /mcp` that are checked after authorization and before the SDK
 * sees the request (world-spec §6.2): media types, protocol version, batches.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  UnsupportedProtocolVersionError,
  isJsonContentType,
} from '@modelcontextprotocol/server';
import { MCP_MODERN_PROTOCOL_VERSION } from '@world/contracts';

/** The first revision with the Streamable HTTP transport; older ones never reach an HTTP endpoint. */
const FIRST_STREAMABLE_HTTP_VERSION = '2025-03-26';
/**
 * Every `MCP-Protocol-Version` this endpoint accepts: the SDK's 2025-era versions from the first
 * Streamable HTTP revision on, plus the modern revision (world-spec §6.2 + ecosystem.md §2.1).
 * @internal exported for protocol.spec.ts
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= FIRST_STREAMABLE_HTTP_VERSION).sort(),
  MCP_MODERN_PROTOCOL_VERSION,
];

/** The revision assumed when the header is absent (world-spec §6.2). */
export const DEFAULT_PROTOCOL_VERSION = FIRST_STREAMABLE_HTTP_VERSION;

/** Exact 400 texts of world-spec §6.2. */
export const HEADER_MESSAGES = {
  contentType: 'Content-Type must be application/json',
  accept: 'Accept must list both application/json and text/event-stream',
  version: (v: string) =>
    `MCP-Protocol-Version "${v}" is not supported; supported: ${MCP_PROTOCOL_VERSIONS.join(', ')}`,
  batch: (v: string) =>
    `JSON-RPC batches are accepted only under MCP-Protocol-Version ${FIRST_STREAMABLE_HTTP_VERSION}, not ${v}`,
  duplicateId: (id: string | number) =>
    `JSON-RPC batch repeats request id ${JSON.stringify(id)}: every request in a batch needs its own id`,
  cancelInBatch: (id: string | number) =>
    `JSON-RPC batch cancels its own request id ${JSON.stringify(id)}: send notifications/cancelled in its own POST`,
} as const;

/**
 * The versions `initialize` may agree to, newest first: the SDK's Server answers the requested
 * version when it is listed and the first listed legacy one otherwise, so a client asking for
 * 2024-11-05 (or 2099-01-01) is offered 2025-11-25 — never a version the next request's header
 * check refuses (world-spec §6.2).
 */
export const NEGOTIABLE_PROTOCOL_VERSIONS: readonly string[] = [...MCP_PROTOCOL_VERSIONS].reverse();

type HeaderValue = string | string[] | undefined;

function single(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The media types an Accept header lists (parameters and q-values dropped).
 * @internal exported for protocol.spec.ts
 */
export function acceptedMediaTypes(accept: string | undefined): string[] {
  if (accept === undefined) return [];
  return accept
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .filter((t) => t !== '');
}

/**
 * Whether an Accept list covers a media type: listed as it is, by its type wildcard
 * (`application/*`) or by `*\/*`. The 2025-era transport says the client lists both types;
 * World also takes a wildcard that covers them (curl's default `*\/*`), as servers in the field
 * do — the answer is then the SSE or JSON the SDK picks, both of which the wildcard admits.
 */
function acceptCovers(accepted: readonly string[], type: string): boolean {
  const major = type.split('/')[0];
  return accepted.some((t) => t === type || t === '*/*' || t === `${major}/*`);
}

/** The Accept header the SDK is handed once World's own check passed (it re-checks). */
export const SDK_ACCEPT = 'application/json, text/event-stream';

/**
 * The first §6.2 header problem of a POST, as its 400 text, or null: Content-Type, then Accept,
 * then MCP-Protocol-Version (world-spec §6.2, §11 scenario 9). An unsupported version is only
 * named here; its answer's shape depends on the body's era (versionRefusal).
 */
export function headerProblem(
  headers: Record<string, HeaderValue>,
): { kind: 'text'; text: string } | { kind: 'version'; version: string } | null {
  if (!isJsonContentType(single(headers['content-type']) ?? null))
    return { kind: 'text', text: HEADER_MESSAGES.contentType };
  const accepted = acceptedMediaTypes(single(headers['accept']));
  if (!acceptCovers(accepted, 'application/json') || !acceptCovers(accepted, 'text/event-stream')) {
    return { kind: 'text', text: HEADER_MESSAGES.accept };
  }
  const version = single(headers['mcp-protocol-version']);
  if (version !== undefined && !MCP_PROTOCOL_VERSIONS.includes(version))
    return { kind: 'version', version };
  return null;
}

/**
 * Whether a parsed body is a 2026-07-28-era request: a JSON-RPC object whose `params._meta`
 * names a protocol version (the per-request envelope; the SDK's own era classifier keys on it).
 */
function isModernRequest(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return (
    typeof meta === 'object' &&
    meta !== null &&
    typeof (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY] === 'string'
  );
}

/** A JSON-RPC error answered as plain JSON with its HTTP status. */
export interface JsonRefusal {
  status: number;
  body: {
    jsonrpc: '2.0';
    id: string | number | null;
    error: { code: number; message: string; data?: unknown };
  };
}

/**
 * The answer to an unsupported MCP-Protocol-Version: for a 2026-07-28-era body, 400 JSON
 * `-32022` with `data.supported` (every version served) and `data.requested` — the SDK's
 * UnsupportedProtocolVersionError, as 2026-07-28 basic/transports asks; for any other body, the
 * world-spec §6.2 400 text (`null` here).
 */
export function versionRefusal(version: string, body: unknown): JsonRefusal | null {
  if (!isModernRequest(body)) return null;
  const error = new UnsupportedProtocolVersionError({
    supported: [...MCP_PROTOCOL_VERSIONS],
    requested: version,
  });
  return {
    status: 400,
    body: {
      jsonrpc: '2.0',
      id: requestIdOf(body),
      error: { code: error.code, message: error.message, data: error.data },
    },
  };
}

/**
 * The 2026-07-28 methods World serves; the SDK serves `server/discover` and
 * `subscriptions/listen` itself.
 */
const MODERN_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'subscriptions/listen',
  'tools/list',
  'tools/call',
]);

/** The -32601 text of a method the endpoint does not serve (world-spec §6.3). */
export function methodNotFoundText(method: string): string {
  return `method not found: ${JSON.stringify(method)}`;
}

/**
 * The answer to a 2026-07-28 request for a method World does not serve: HTTP 404 with -32601
 * and the world-spec §6.3 text (2026-07-28 basic/transports: "unknown method → 404"), the same
 * for `ping` (gone from that revision) as for any other. Null for every other body; the
 * 2025-era answer stays the in-band -32601 on 200 (toolServer's fallback).
 */
export function modernMethodRefusal(body: unknown): JsonRefusal | null {
  if (!isModernRequest(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || id === undefined || MODERN_METHODS.has(method)) return null;
  return {
    status: 404,
    body: {
      jsonrpc: '2.0',
      id: requestIdOf(body),
      error: { code: -32601, message: methodNotFoundText(method) },
    },
  };
}

function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The 400 text for a batch World will not run, or null: batches exist only in 2025-03-26, the
 * default when the header is absent (world-spec §6.2); and a batch repeating a request id is
 * refused before anything runs, since the SDK answers one response per id and the other call's
 * committed output would never be delivered (JSON-RPC 2.0 §6: one response per request); and a
 * batch cancelling one of its own requests is refused (ownCancelProblem).
 */
export function batchProblem(version: string | undefined, body: unknown): string | null {
  if (!Array.isArray(body)) return null;
  const effective = version ?? DEFAULT_PROTOCOL_VERSION;
  if (effective !== FIRST_STREAMABLE_HTTP_VERSION) return HEADER_MESSAGES.batch(effective);
  const seen = new Set<RequestId>();
  for (const message of body) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id } = message as { method?: unknown; id?: unknown };
    if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) continue;
    if (seen.has(id)) return HEADER_MESSAGES.duplicateId(id);
    seen.add(id);
  }
  return ownCancelProblem(body, seen);
}

/**
 * The 400 text for a batch holding a `notifications/cancelled` for one of its own requests, or
 * null. Refused before anything runs: the SDK aborts that request's handler and never answers it,
 * so the POST would never end, while World's own cancel registry hears the cancel before the
 * request is registered and would run it anyway (MCP basic/utilities/cancellation leaves such a
 * race to the receiver). A batch cancelling a request of another POST is served as any other.
 * @param batch the batch's messages
 * @param requestIds the ids of the batch's requests
 */
function ownCancelProblem(batch: unknown[], requestIds: ReadonlySet<RequestId>): string | null {
  for (const message of batch) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
    if (method !== 'notifications/cancelled' || id !== undefined) continue;
    const requestId = (params as { requestId?: unknown } | null | undefined)?.requestId;
    if (
      (typeof requestId === 'string' || typeof requestId === 'number') &&
      requestIds.has(requestId)
    )
      return HEADER_MESSAGES.cancelInBatch(requestId);
  }
  return null;
}

/** A JSON-RPC request id as the SDK hands it to a handler. */
export type RequestId = string | number;

/**
 * The `arguments` of every `tools/call` request of a parsed POST body (one message or a batch),
 * by request id in body order, exactly as JSON.parse made them. The SDK re-validates `params`
 * into fresh objects by assignment, which drops an own `__proto__` key (it sets the prototype
 * instead); the tool must see every key the client sent, so that world-spec §3.0 step 5 refuses
 * `__proto__` as an unknown argument rather than the call running without it.
 * @param body the parsed POST body
 * @returns request id → the arguments of each `tools/call` with that id (`undefined` when the
 *   request had none), in the order the SDK dispatches them
 */
export function toolCallArguments(body: unknown): Map<RequestId, unknown[]> {
  const byId = new Map<RequestId, unknown[]>();
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) continue;
    const args =
      typeof params === 'object' && params !== null
        ? (params as { arguments?: unknown }).arguments
        : undefined;
    const queue = byId.get(id);
    if (queue === undefined) byId.set(id, [args]);
    else queue.push(args);
  }
  return byId;
}

/** `tools/call` params as World reads them. */
export interface ToolCallParams {
  name: string;
  arguments?: unknown;
  _meta?: Record<string, unknown>;
}

/**
 * The `tools/call` params of a request, or the one-line reason they are not usable, worded for
 * `invalid params: <reason>` (world-spec §6.3) — instead of the SDK's multi-line zod dump. The
 * `arguments` value is checked by the exchange (it must be a JSON object when present).
 */
export function toolCallParams(params: unknown): ToolCallParams | { problem: string } {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return { problem: 'params must be a JSON object' };
  const { name, _meta } = params as { name?: unknown; _meta?: unknown };
  if (typeof name !== 'string') return { problem: 'params.name must be a string' };
  if (_meta !== undefined && (typeof _meta !== 'object' || _meta === null || Array.isArray(_meta)))
    return { problem: 'params._meta must be a JSON object' };
  return params as ToolCallParams;
}

/**
 * The revision a POST speaks: its MCP-Protocol-Version header, else the version its
 * `params._meta` envelope names (2026-07-28), else the §6.2 default 2025-03-26.
 */
export function protocolVersionOf(header: string | undefined, body: unknown): string {
  if (header !== undefined) return header;
  if (isModernRequest(body)) {
    const meta = (body as { params: { _meta: Record<string, unknown> } }).params._meta;
    return meta[PROTOCOL_VERSION_META_KEY] as string;
  }
  return DEFAULT_PROTOCOL_VERSION;
}
