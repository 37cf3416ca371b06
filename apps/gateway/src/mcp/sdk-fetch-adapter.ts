/**
 * The gateway's one hand-off to the MCP SDK (`@modelcontextprotocol/server`): a Node request to
 * the SDK's web-standard `fetch` handler and its answer back, in place of `toNodeHandler` of
 * `@modelcontextprotocol/node`. It does what `toNodeHandler` does — request URL and headers,
 * `authInfo`, the parsed body, an abort signal that fires when the client goes away, the SDK's
 * 500 fallback — without its per-POST copies: the body is not re-serialized into the web Request
 * (the SDK reads the `parsedBody` option, never the stream, when it is given) and the answer is
 * buffered, so the endpoint can replace it and write it in one `end()`. The bench measured why:
 * the node adapter's `toWebRequest` and Response adaptation were 18 % of the gateway's CPU
 * (bench/README.md "What the misses were made of", gateway), and this hand-off took gateway peak
 * RSS under 32 clients from 252 to 179 MB together with the heap setting (bench/README.md "What
 * changed since the first profile", item 4).
 *
 * `parsedBody` is the SDK's documented escape hatch for a body already parsed, but that it is read
 * *instead of* the stream is what this relies on: assertSdkServesParsedBody checks it once at
 * start-up, so an SDK upgrade that changes it stops the gateway with a LibraryShapeError instead
 * of answering every call with a parse error.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  Server,
  type AuthInfo,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { LibraryShapeError, installedVersion } from '@world/runtime';
import { JSONRPC } from '../errors/error-map.js';
import { SDK_ACCEPT } from './protocol.js';

/** The SDK's answer to one POST, buffered. */
export interface SdkAnswer {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer | null;
  /** true when the SDK threw and this is the adapter's own JSON-RPC 500 */
  thrown: boolean;
}

type JsonRpcId = string | number | null;

/** The SDK's text of a JSON-RPC 500 (`internalServerErrorResponse` of both SDK packages). */
const INTERNAL_TEXT = 'Internal server error';

/** Request headers the SDK never sees: the body it reads is `parsedBody`, not these bytes. */
const BODY_FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
]);

/**
 * Hands one POST to the SDK's fetch handler and buffers its answer: the SDK's status, headers
 * and body. The request is aborted when the client goes away before the answer. Should the SDK
 * throw (it answers every failure itself, so only a closed handler does), the answer is
 * `toNodeHandler`'s: `onerror` is told, then a JSON-RPC 500 `Internal server error` echoing the
 * request's id (`thrown: true`).
 * @param body the parsed body, also passed as `options.parsedBody`
 */
export async function answerFromSdk(
  handler: Pick<McpHttpHandler, 'fetch'>,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: McpHandlerRequestOptions & { authInfo: AuthInfo },
  onerror: (error: Error) => void,
): Promise<SdkAnswer> {
  const abort = new AbortController();
  let finished = false;
  res.once('close', () => {
    if (!finished) abort.abort();
  });
  if (res.destroyed) abort.abort();
  try {
    const response = await handler.fetch(webRequestOf(req, abort.signal), options);
    const bytes = response.body === null ? null : Buffer.from(await response.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    return { status: response.status, headers, bytes, thrown: false };
  } catch (err) {
    onerror(err instanceof Error ? err : new Error(String(err)));
    const envelope = {
      jsonrpc: '2.0',
      id: echoableRequestId(body),
      error: { code: JSONRPC.internalError, message: INTERNAL_TEXT },
    };
    return {
      status: 500,
      headers: { 'Content-Type': 'application/json' },
      bytes: Buffer.from(JSON.stringify(envelope)),
      thrown: true,
    };
  } finally {
    finished = true;
  }
}

/** Writes a buffered answer in one `end()`. */
export function writeSdkAnswer(res: ServerResponse, answer: SdkAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.bytes ?? undefined);
}

/**
 * The web-standard Request the SDK classifies and validates: method, URL and headers of the
 * Node request (pseudo-headers dropped, repeated headers kept), and no body — the SDK is always
 * given the parsed body, from which it reads the JSON-RPC message(s).
 */
function webRequestOf(
  req: Pick<IncomingMessage, 'headers' | 'url' | 'method'>,
  signal: AbortSignal,
): Request {
  // Node keeps one Host header (it drops repeats), so this is never a list.
  const host = req.headers.host ?? 'localhost';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || BODY_FRAMING_HEADERS.has(name)) continue;
    // World's own check admitted this Accept (wildcards included); the SDK re-checks a listing.
    if (name === 'accept') {
      headers.set(name, SDK_ACCEPT);
      continue;
    }
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(`http://${host}${req.url ?? '/'}`, {
    method: (req.method ?? 'POST').toUpperCase(),
    headers,
    signal,
  });
}

/** The id a JSON-RPC error may echo: a request's string or number id, else null (as the SDK). */
function echoableRequestId(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string') return null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const LIBRARY = '@modelcontextprotocol/server';
const ADAPTER = {
  name: "the gateway's MCP hand-off (answerFromSdk)",
  file: 'apps/gateway/src/mcp/sdk-fetch-adapter.ts',
  writtenAgainst: '2.4.0',
};

/** The id of the start-up probe's ping. */
const PROBE_ID = 'world-sdk-probe';

/**
 * The start-up shape check of the hand-off: a handler made by `create` (the SDK's
 * createMcpHandler) must have `fetch` and `close`, and must answer a 2025-era `ping` sent as
 * answerFromSdk sends every POST — a Request without a body, the message in `parsedBody` — with
 * HTTP 200 and the ping's result, as JSON or as one SSE `data:` line.
 * @param create the handler factory (tests pass one of another shape)
 * @throws LibraryShapeError naming the SDK's installed version and what it did instead
 */
export async function assertSdkServesParsedBody(
  create: (factory: () => Server, options: { keepAliveMs: number }) => unknown = createMcpHandler,
): Promise<void> {
  const fail = (problem: string) =>
    new LibraryShapeError(LIBRARY, installedVersion(LIBRARY, import.meta.url), problem, ADAPTER);
  const handler = create(() => new Server({ name: PROBE_ID, version: '0' }, { capabilities: {} }), {
    keepAliveMs: 0,
  }) as Partial<McpHttpHandler> | null;
  if (typeof handler?.fetch !== 'function')
    throw fail('createMcpHandler() returned no fetch(request, options) function');
  if (typeof handler.close !== 'function')
    throw fail('createMcpHandler() returned no close() function');
  const ping = { jsonrpc: '2.0', id: PROBE_ID, method: 'ping' };
  let status: number;
  let text: string;
  let contentType: string;
  try {
    const request = webRequestOf(
      {
        method: 'POST',
        url: '/mcp',
        headers: {
          host: 'localhost',
          'content-type': 'application/json',
          accept: SDK_ACCEPT,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      new AbortController().signal,
    );
    const response = await handler.fetch(request, { parsedBody: ping });
    status = response.status;
    contentType = response.headers.get('content-type') ?? '';
    text = await response.text();
  } finally {
    await handler.close().catch(() => undefined);
  }
  const answered = answeredMessage(contentType, text);
  const expected = JSON.stringify({ jsonrpc: '2.0', id: PROBE_ID, result: {} });
  if (status !== 200 || answered !== expected)
    throw fail(
      `fetch(request, { parsedBody }) answered a ping sent without a request body with ` +
        `${status} ${JSON.stringify(text)}, not 200 and ${expected}: the SDK no longer reads ` +
        'the given parsedBody instead of the request body',
    );
}

/** The one JSON-RPC message of an answer (JSON body or SSE), keys sorted; null if not one. */
function answeredMessage(contentType: string, text: string): string | null {
  let raw = text;
  if (contentType.startsWith('text/event-stream')) {
    const data = text.split('\n').filter((line) => line.startsWith('data: '));
    if (data.length !== 1) return null;
    raw = data[0]!.slice('data: '.length);
  }
  try {
    const message = JSON.parse(raw) as Record<string, unknown>;
    return JSON.stringify({ jsonrpc: message.jsonrpc, id: message.id, result: message.result });
  } catch {
    return null;
  }
}
