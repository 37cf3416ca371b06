import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, ServerCallContext, type User } from '@a2a-js/sdk/server';
import {
  A2A_BODY_MAX_BYTES,
  ProjectionDeadlineExceededError,
  ProjectionUnavailableError,
  invocationIdOf,
  type Session,
  type ToolDescriptor,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { Authenticator } from '../auth/authenticator.js';
import {
  A2A_MESSAGES,
  A2A_SESSION_DENIED,
  A2A_V1_UNAUTHENTICATED,
  JSONRPC,
  a2aErrorOf,
  asWorldError,
  restErrorOf,
  rowOf,
  type A2aError,
} from '../errors/error-map.js';
import { GATEWAY_LOG } from '../gateway.tokens.js';
import { decodeJsonBody, readBody } from '../http/body.js';
import type { LogSink } from '../log.js';
import { currentCardJson, legacyCardJson, referenceCardJson } from './agent-cards.js';
import { InvokeSkill } from './invoke-skill.js';
import { logA2aRefusal } from './refusal-log.js';
import {
  A2A_V1_ERRORS,
  SessionRequestHandler,
  type HandlerDeps,
} from './session-request-handler.js';
import { committedOfReply, tasksSendResultText } from './task-views.js';
import { TASKS_SEND, decodeTasksSend, isObject } from './tasks-send.js';
import { ToolSurface } from './tool-surface.js';

/** Which card a GET asks for. */
export type CardKind = 'current' | 'reference';

/** `A2A-Version` values and what they select (ecosystem.md §2.3: absent means 0.3). */
const CURRENT_VERSION = '1.0';
const LEGACY_VERSION = '0.3';

/** The fixed text of each JSON-RPC code when the SDK, not World, produced the error. */
const FIXED_TEXTS: ReadonlyMap<number, string> = new Map<number, string>([
  [JSONRPC.parseError, 'parse error: the request body is not JSON'],
  [JSONRPC.invalidRequest, A2A_MESSAGES.invalidRequest],
  [JSONRPC.methodNotFound, A2A_MESSAGES.methodNotFound],
  [JSONRPC.invalidParams, A2A_MESSAGES.invalidParams],
  ...Object.values(A2A_V1_ERRORS).map((e): [number, string] => [e.code, e.message]),
]);

/** The answer to anything World cannot name (world-spec §6.5). */
const NOT_AVAILABLE = { code: JSONRPC.internalError, message: A2A_MESSAGES.notAvailable };

type JsonRpcEnvelope = {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * The A2A surfaces of the gateway (world-spec §5.13, §6.1, §6.5; DESIGN.md §7.6):
 * - `POST /a2a` (and `/a2a/`): the reference `tasks/send`, every answer HTTP 200 JSON-RPC;
 * - `POST /a2a/jsonrpc`: the current protocol through `@a2a-js/sdk` — A2A 1.0 (`SendMessage`,
 *   `GetTask`) when `A2A-Version: 1.0`, its 0.3 compatibility layer (`message/send`,
 *   `tasks/get`) when the header is absent or `0.3`;
 * - `GET /.well-known/agent-card.json` (1.0 card, or its 0.3 rendering for a client that sends
 *   no `A2A-Version`) and `GET /.well-known/agent.json` (the reference card).
 * Authorization comes first on every route, before the body is read (§6.1); bodies are read here,
 * at most A2A_BODY_MAX_BYTES, so no framework answers HTML (ecosystem.md §0.8, §8).
 */
@Injectable()
export class A2aEndpoint {
  /** what each JSON-RPC POST's SessionRequestHandler is built with */
  private readonly handlerDeps: HandlerDeps;

  constructor(
    private readonly auth: Authenticator,
    private readonly invokeSkill: InvokeSkill,
    private readonly surface: ToolSurface,
    @Inject(RPC) rpc: RpcClient,
    @Inject(GATEWAY_LOG) private readonly log: LogSink,
  ) {
    this.handlerDeps = { invokeSkill, surface, rpc, log };
  }

  /**
   * `POST /a2a`: the processing order of world-spec §6.5 — session (errors with id null: absent,
   * unknown, expired -32001; malformed -32600) → body → envelope → params → InvokeSkill. All
   * answers are HTTP 200 `application/json` echoing the request id; `Connection: close` only when
   * the invocation deadline ended it. Never throws.
   */
  async tasksSend(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = await this.session(req, TASKS_SEND);
    if (!('episodeId' in session)) return rpcAnswer(res, 200, errorEnvelope(null, session));
    if (req.method !== 'POST') return notPost(res);
    let bytes: Buffer;
    try {
      bytes = await readBody(req, A2A_BODY_MAX_BYTES);
    } catch (err) {
      return rpcAnswer(
        res,
        200,
        errorEnvelope(null, this.failure(err, TASKS_SEND, undefined)),
        true,
      );
    }
    const decoded = decodeTasksSend(bytes);
    if (decoded.kind === 'refusal') return rpcAnswer(res, 200, errorEnvelope(decoded.id, decoded));
    const invocationId = invocationIdOf('a2a', session.episodeId, decoded.call.taskId);
    let text: string;
    try {
      const reply = await this.invokeSkill.execute(session, decoded.call);
      text = tasksSendResultText(decoded.id, decoded.call.taskId, committedOfReply(reply));
    } catch (err) {
      const failure = this.failure(err, TASKS_SEND, invocationId, true);
      return rpcAnswer(res, 200, errorEnvelope(decoded.id, failure), failure.closeConnection);
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(text);
  }

  /**
   * `POST /a2a/jsonrpc`: session first — a denial is HTTP 401 with `WWW-Authenticate: Bearer`
   * and -32000 carrying the §6.1 text (A2A_V1_UNAUTHENTICATED: never the 1.0 TaskNotFound
   * -32001), a malformed header 400 -32600 — then the body (over the limit: 413
   * with a JSON-RPC error, never HTML), then the version (`A2A-Version` 1.0, or absent/0.3 for
   * the compatibility layer; anything else -32009), then the SDK's JSON-RPC transport over a
   * SessionRequestHandler. Errors the SDK itself raises get the fixed text of their code.
   */
  async jsonRpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = await this.session(req, 'a2a/jsonrpc');
    if (!('episodeId' in session)) {
      // Absent, unknown, expired: 401; malformed: 400; a broker that did not answer: 200.
      const status =
        session.code === A2A_SESSION_DENIED
          ? 401
          : session.code === JSONRPC.invalidRequest
            ? 400
            : 200;
      if (status !== 401) return rpcAnswer(res, status, errorEnvelope(null, session));
      res.setHeader('WWW-Authenticate', 'Bearer');
      return rpcAnswer(
        res,
        401,
        errorEnvelope(null, { code: A2A_V1_UNAUTHENTICATED, message: session.message }),
      );
    }
    if (req.method !== 'POST') return notPost(res);
    let bytes: Buffer;
    try {
      bytes = await readBody(req, A2A_BODY_MAX_BYTES);
    } catch (err) {
      const failure = this.failure(err, 'a2a/jsonrpc', undefined);
      return rpcAnswer(res, rowOf(asWorldError(err)).status, errorEnvelope(null, failure), true);
    }
    // Not UTF-8 (never decoded with U+FFFD) or not JSON: -32700, nothing runs.
    const decoded = decodeJsonBody(bytes);
    if (!decoded.ok) return rpcAnswer(res, 200, errorEnvelope(null, fixed(JSONRPC.parseError)));
    const body = decoded.value;
    if (!isObject(body))
      return rpcAnswer(res, 200, errorEnvelope(null, fixed(JSONRPC.invalidRequest)));
    const id = validId(body.id);
    const version = header(req, A2A_VERSION_HEADER);
    const legacy = version === undefined || version === '' || version === LEGACY_VERSION;
    if (!legacy && version !== CURRENT_VERSION)
      return rpcAnswer(res, 200, errorEnvelope(id, A2A_V1_ERRORS.versionNotSupported));

    const method = typeof body.method === 'string' ? body.method : '-';
    const handler = new SessionRequestHandler(session, this.handlerDeps, method, originOf(req));
    const context = new ServerCallContext({
      user: new SessionUser(session),
      requestedVersion: legacy ? LEGACY_VERSION : CURRENT_VERSION,
    });
    let envelope: JsonRpcEnvelope;
    try {
      const answer = legacy
        ? await new LegacyJsonRpcTransportHandler(handler).handle(body, context)
        : await new JsonRpcTransportHandler(handler).handle(body, context);
      // Streaming methods are refused before they yield; an iterator here is a wiring bug.
      if (Symbol.asyncIterator in answer) throw new Error(`${method} answered a stream`);
      envelope = answer as JsonRpcEnvelope;
    } catch (err) {
      envelope = errorEnvelope(id, this.failure(err, method, undefined));
    }
    if (envelope.error !== undefined) envelope = this.fixError(envelope, handler, method);
    rpcAnswer(res, 200, envelope, handler.closeConnection);
  }

  /**
   * `GET /.well-known/agent-card.json` and `/.well-known/agent.json`: a live session is required
   * (the REST envelope of world-spec §5.1 otherwise: 401, or 400 InvalidSession); skills are
   * exactly the tools the session's grants admit; `Cache-Control: no-store` because the card is
   * the caller's own (ecosystem.md §8: the SDK would cache it for an hour). A failed registry
   * read is 503 ProjectionUnavailable, a deadline 504 ProjectionDeadlineExceeded (§5.13).
   */
  async card(req: IncomingMessage, res: ServerResponse, kind: CardKind): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', `Authorization, ${A2A_VERSION_HEADER}`);
    let tools: ToolDescriptor[];
    try {
      const session = await this.auth.session(header(req, 'authorization'));
      tools = await this.surface.ofCard(session);
    } catch (err) {
      const error = asWorldError(err);
      const { status, body } = restErrorOf(error);
      // Projection failures were logged with their cause where they happened.
      const projection =
        error instanceof ProjectionUnavailableError ||
        error instanceof ProjectionDeadlineExceededError;
      if (status >= 500 && !projection) this.log.error({ err, path: req.url }, 'agent card failed');
      return json(res, status, body);
    }
    const origin = originOf(req);
    const version = header(req, A2A_VERSION_HEADER);
    if (kind === 'reference') return json(res, 200, referenceCardJson(tools, origin));
    if (version === undefined || version === '' || version === LEGACY_VERSION)
      return json(res, 200, legacyCardJson(tools, origin));
    json(res, 200, currentCardJson(tools, origin));
  }

  /** The caller's live session, or the A2A error its denial answers with (world-spec §6.1). */
  private async session(req: IncomingMessage, method: string): Promise<Session | A2aError> {
    try {
      return await this.auth.session(header(req, 'authorization'));
    } catch (err) {
      return this.failure(err, method, undefined);
    }
  }

  /**
   * Any failure through the one error table; host failures logged as `a2a refusal` lines.
   * @param keyed the failure ended the tool call of task `invocationId` (a2aErrorOf)
   */
  private failure(
    err: unknown,
    method: string,
    invocationId: string | undefined,
    keyed = false,
  ): A2aError {
    const error = asWorldError(err);
    const answer = a2aErrorOf(error, keyed);
    if (answer.host) logA2aRefusal(this.log, method, invocationId, error, err);
    return answer;
  }

  /**
   * Keeps an error the handler raised; gives any other (the SDK's own parsing and dispatch
   * refusals, whose texts may quote the request) the fixed text of its code, logging the original.
   */
  private fixError(
    envelope: JsonRpcEnvelope,
    handler: SessionRequestHandler,
    method: string,
  ): JsonRpcEnvelope {
    const error = envelope.error!;
    const own = handler.refusal;
    if (own !== undefined && own.code === error.code && own.message === error.message)
      return {
        jsonrpc: '2.0',
        id: envelope.id,
        error: { code: error.code, message: error.message },
      };
    const text = FIXED_TEXTS.get(error.code);
    if (text === undefined) {
      this.log.error(
        { code: error.code },
        `a2a refusal: ${method} -: ${JSON.stringify(`sdk: ${error.message}`)}`,
      );
      return errorEnvelope(envelope.id, NOT_AVAILABLE);
    }
    this.log.warn({ code: error.code, sdkMessage: error.message, method }, 'a2a sdk refusal');
    return errorEnvelope(envelope.id, { code: error.code, message: text });
  }
}

/** The caller as the SDK's context sees it: its episode. */
class SessionUser implements User {
  constructor(private readonly session: Session) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.session.episodeId;
  }
}

function fixed(code: number): { code: number; message: string } {
  return { code, message: FIXED_TEXTS.get(code)! };
}

function errorEnvelope(id: unknown, error: { code: number; message: string }): JsonRpcEnvelope {
  return { jsonrpc: '2.0', id: id ?? null, error: { code: error.code, message: error.message } };
}

/** A JSON-RPC id the SDK echoes: a string, an integer or null. */
function validId(id: unknown): string | number | null {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

/** `<scheme>://<Host header>` (world-spec §5.13 `url`): the gateway speaks plain HTTP. */
function originOf(req: IncomingMessage): string {
  return `http://${header(req, 'host') ?? 'localhost'}`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function notPost(res: ServerResponse): void {
  res.setHeader('Allow', 'POST');
  rpcAnswer(res, 405, errorEnvelope(null, fixed(JSONRPC.invalidRequest)));
}

function rpcAnswer(
  res: ServerResponse,
  status: number,
  envelope: JsonRpcEnvelope,
  closeConnection = false,
): void {
  if (closeConnection) res.setHeader('Connection', 'close');
  json(res, status, envelope);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}
