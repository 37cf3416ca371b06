import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  Server,
  type AuthInfo,
  type ListToolsResult,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { MCP_BODY_MAX_BYTES, type Session } from '@world/contracts';
import type { Authenticator } from '../auth/authenticator.js';
import { JSONRPC, asWorldError, mcpErrorOf, rowOf } from '../errors/error-map.js';
import { decodeJsonBody, readBody } from '../http/body.js';
import { DAEMON_VERSION, MCP_SERVER_NAME } from '../identity.js';
import { McpCancellations, cancelledRequestIds, withoutAnswersTo } from './cancellation.js';
import { McpExchange, McpFailure, type ExchangeDeps } from './mcp-exchange.js';
import {
  HEADER_MESSAGES,
  NEGOTIABLE_PROTOCOL_VERSIONS,
  batchProblem,
  headerProblem,
  methodNotFoundText,
  modernMethodRefusal,
  protocolVersionOf,
  toolCallArguments,
  toolCallParams,
  versionRefusal,
  type JsonRefusal,
} from './protocol.js';
import { answerFromSdk, writeSdkAnswer } from './sdk-fetch-adapter.js';

/** Where the exchange rides inside the SDK's pass-through auth info. */
const EXCHANGE_KEY = 'world.exchange';

/** The JSON-RPC code the SDK uses for transport-level refusals (405). */
const TRANSPORT_ERROR_CODE = -32000;

type JsonRpcId = string | number | null;

/**
 * `POST /mcp` (and `/mcp/`): MCP Streamable HTTP, stateless, both eras (world-spec §6.1–§6.4,
 * ecosystem.md §2.2, §8). The order is the contract:
 * 1. Authorization, before anything else is read — 401 text/plain with the §6.1 texts and
 *    `WWW-Authenticate: Bearer` (RFC 6750 §3);
 * 2. POST only (GET/DELETE 405: nothing to resume, no session to end);
 * 3. the §6.2 header checks — 400 text/plain;
 * 4. the body, at most MCP_BODY_MAX_BYTES — 413 with a JSON-RPC envelope, never HTML — and
 *    UTF-8 JSON (decodeJsonBody) — 400 with -32700;
 * 5. batches only under 2025-03-26, with no repeated request id and no cancel of their own
 *    requests (batchProblem) — 400;
 * 6. the SDK (`createMcpHandler`, one low-level Server per POST) through its web-standard
 *    `fetch` with the body already parsed, whose answer is replaced by one plain JSON envelope
 *    when a host call failed (world-spec §6.3), and loses the responses to requests the client
 *    cancelled — by `notifications/cancelled` or by closing the POST (cancellation.ts).
 *
 * The hand-off to the SDK is answerFromSdk (sdk-fetch-adapter.ts, in place of the node adapter's
 * `toNodeHandler`), whose reliance on the SDK is checked at start-up (assertSdkServesParsedBody).
 */
export class McpEndpoint {
  private readonly handler: McpHttpHandler;
  private readonly onerror: (error: Error) => void;
  private readonly deps: ExchangeDeps;
  /** this gateway's in-flight tools/call requests, for `notifications/cancelled` */
  private readonly cancellations = new McpCancellations();

  constructor(
    private readonly auth: Authenticator,
    deps: ExchangeDeps,
  ) {
    this.deps = { ...deps, cancellations: this.cancellations };
    const onerror = (error: Error) => deps.log.warn({ err: error }, 'mcp transport refusal');
    this.onerror = onerror;
    this.handler = createMcpHandler((ctx) => toolServer(exchangeOf(ctx)), {
      // Answers are buffered (see serve()), so keep-alive comments would only pad them.
      keepAliveMs: 0,
      maxRequestBodySize: MCP_BODY_MAX_BYTES,
      onerror,
    });
  }

  /** Serves one HTTP request on the MCP endpoint. Never throws: every outcome is an answer. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let session: Session;
    try {
      session = await this.auth.session(single(req.headers.authorization));
    } catch (err) {
      const error = asWorldError(err);
      const row = rowOf(error);
      if (row.status >= 500) this.deps.log.error({ err }, 'mcp session lookup failed');
      const status = row.mcpStatus ?? row.status;
      // RFC 6750 §3: a 401 from a bearer-protected resource names the scheme (as /a2a does).
      if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
      return plain(res, status, row.restMessage ?? error.message);
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return json(res, 405, rpcError(null, TRANSPORT_ERROR_CODE, 'Method not allowed.'));
    }
    const problem = headerProblem(req.headers);
    if (problem?.kind === 'text') return plain(res, 400, problem.text);

    let bytes: Buffer;
    try {
      bytes = await readBody(req, MCP_BODY_MAX_BYTES);
    } catch (err) {
      const failure = mcpErrorOf(asWorldError(err));
      res.setHeader('Connection', 'close');
      return json(
        res,
        rowOf(asWorldError(err)).status,
        rpcError(null, failure.code, failure.message),
      );
    }
    // Bytes that are not UTF-8 are refused, never decoded with U+FFFD (and then written).
    const decoded = decodeJsonBody(bytes);
    if (!decoded.ok) {
      if (problem !== null) return plain(res, 400, HEADER_MESSAGES.version(problem.version));
      const what = decoded.reason === 'utf8' ? 'valid UTF-8' : 'valid JSON';
      return json(
        res,
        400,
        rpcError(null, JSONRPC.parseError, `Parse error: the request body is not ${what}`),
      );
    }
    const body = decoded.value;
    if (problem !== null) {
      const refusal = versionRefusal(problem.version, body);
      if (refusal === null) return plain(res, 400, HEADER_MESSAGES.version(problem.version));
      return refuse(res, refusal);
    }
    const unknownMethod = modernMethodRefusal(body);
    if (unknownMethod !== null) return refuse(res, unknownMethod);
    const batch = batchProblem(single(req.headers['mcp-protocol-version']), body);
    if (batch !== null) return plain(res, 400, batch);

    // MCP cancellation: a notification names a request of this session in flight on another
    // POST; the SDK then answers the notification itself (202).
    for (const id of cancelledRequestIds(body)) this.cancellations.cancel(session.credentialId, id);
    // The client closing this POST before its answer cancels its calls (2026-07-28: "closing
    // that stream = cancellation"; in the 2025 era a closed connection cannot take an answer).
    const closed = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) closed.abort();
    });
    const exchange = new McpExchange(
      session,
      requestIdOf(body),
      this.deps,
      toolCallArguments(body),
      protocolVersionOf(single(req.headers['mcp-protocol-version']), body),
      closed.signal,
    );
    const authInfo: AuthInfo = {
      token: session.credentialId,
      clientId: session.episodeId,
      scopes: [],
      extra: { [EXCHANGE_KEY]: exchange },
    };
    await this.serve(req, res, body, { authInfo, parsedBody: body });
  }

  /** Stops the SDK's modern leg (in-flight exchanges are aborted). */
  async close(): Promise<void> {
    await this.handler.close();
  }

  /**
   * Hands one POST to the SDK and writes its answer: the SDK's status, headers and (buffered)
   * body, or — when a host call failed — the fixed plain JSON envelope
   * `{"jsonrpc":"2.0","id":<id>,"error":{"code":-32603,"message":"host callback failed"}}` on
   * HTTP 200, `id` null for a batch (world-spec §6.3). Answers are single finite events, so
   * buffering them costs nothing and lets a failure replace the whole POST.
   * @param options the exchange's `authInfo` and the already parsed body
   */
  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    options: McpHandlerRequestOptions & { authInfo: AuthInfo },
  ): Promise<void> {
    const exchange = exchangeOf(options);
    const answer = await answerFromSdk(this.handler, req, res, body, options, this.onerror);
    if (res.destroyed) return;
    if (!answer.thrown && exchange.hostFailure !== undefined) {
      const { code, message } = exchange.hostFailure;
      return json(res, 200, rpcError(exchange.requestId, code, message));
    }
    // No response for a cancelled request (MCP basic/utilities/cancellation).
    writeSdkAnswer(res, withoutAnswersTo(answer, exchange.cancelled));
  }
}

/** The per-POST low-level Server: tools/list and tools/call over the exchange (ecosystem.md §8). */
function toolServer(exchange: McpExchange): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: DAEMON_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      supportedProtocolVersions: [...NEGOTIABLE_PROTOCOL_VERSIONS],
    },
  );
  // Descriptor schemas are JSON Schema objects; the SDK's type narrows them to `type: "object"`.
  server.setRequestHandler('tools/list', async (request, ctx) => ({
    tools: (await exchange.listTools(
      ctx.mcpReq.id,
      request.params?._meta,
    )) as ListToolsResult['tools'],
  }));
  // tools/call is served by the fallback, not setRequestHandler: the SDK's handler wrapper
  // refuses malformed params with a multi-line zod dump, where world-spec §6.3 wants one line
  // `invalid params: …` (toolCallParams). Any other method: the reference's text names it
  // (world-spec §6.3 `method not found: "…"`); 2026-07-28 requests never get here for one
  // (modernMethodRefusal answers them 404 first).
  server.fallbackRequestHandler = async (request, ctx) => {
    if (request.method !== 'tools/call') {
      throw new McpFailure(JSONRPC.methodNotFound, methodNotFoundText(request.method));
    }
    const params = toolCallParams(request.params);
    if ('problem' in params) {
      throw new McpFailure(JSONRPC.invalidParams, `invalid params: ${params.problem}`);
    }
    return exchange.callTool(params, ctx.mcpReq.id);
  };
  return server;
}

function exchangeOf(ctx: Pick<McpRequestContext, 'authInfo'>): McpExchange {
  const exchange = ctx.authInfo?.extra?.[EXCHANGE_KEY];
  // Only handle() reaches the SDK, and it always attaches one: anything else is a wiring bug.
  if (!(exchange instanceof McpExchange)) throw new Error('MCP request without an exchange');
  return exchange;
}

function requestIdOf(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function rpcError(id: JsonRpcId, code: number, message: string) {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

function refuse(res: ServerResponse, refusal: JsonRefusal): void {
  json(res, refusal.status, refusal.body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}
