/**
 * The transport rules of `POST /mcp` that are checked after authorization and before the SDK
 * sees the request (world-spec §6.2): media types, protocol version, batches.
 */
import { SUPPORTED_PROTOCOL_VERSIONS, isJsonContentType } from '@modelcontextprotocol/server';

/** The first revision with the Streamable HTTP transport; older ones never reach an HTTP endpoint. */
export const FIRST_STREAMABLE_HTTP_VERSION = '2025-03-26';
/** The stateless revision the SDK serves on its modern path (ecosystem.md §2.1). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * Every `MCP-Protocol-Version` this endpoint accepts: the SDK's 2025-era versions from the first
 * Streamable HTTP revision on, plus the modern revision (world-spec §6.2 + ecosystem.md §2.1).
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= FIRST_STREAMABLE_HTTP_VERSION).sort(),
  MODERN_PROTOCOL_VERSION,
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
} as const;

type HeaderValue = string | string[] | undefined;

function single(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The media types an Accept header lists (parameters and q-values dropped). */
export function acceptedMediaTypes(accept: string | undefined): string[] {
  if (accept === undefined) return [];
  return accept
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .filter((t) => t !== '');
}

/**
 * The first §6.2 header problem of a POST, as its 400 text, or null: Content-Type, then Accept,
 * then MCP-Protocol-Version (world-spec §6.2, §11 scenario 9).
 */
export function headerProblem(headers: Record<string, HeaderValue>): string | null {
  if (!isJsonContentType(single(headers['content-type']) ?? null))
    return HEADER_MESSAGES.contentType;
  const accepted = acceptedMediaTypes(single(headers['accept']));
  if (!accepted.includes('application/json') || !accepted.includes('text/event-stream')) {
    return HEADER_MESSAGES.accept;
  }
  const version = single(headers['mcp-protocol-version']);
  if (version !== undefined && !MCP_PROTOCOL_VERSIONS.includes(version))
    return HEADER_MESSAGES.version(version);
  return null;
}

/**
 * The 400 text for a JSON-RPC batch under a revision without batches, or null: batches exist
 * only in 2025-03-26, the default when the header is absent (world-spec §6.2).
 */
export function batchProblem(version: string | undefined, body: unknown): string | null {
  if (!Array.isArray(body)) return null;
  const effective = version ?? DEFAULT_PROTOCOL_VERSION;
  return effective === FIRST_STREAMABLE_HTTP_VERSION ? null : HEADER_MESSAGES.batch(effective);
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
