/**
 * MCP cancellation at the gateway (MCP basic/utilities/cancellation; 2026-07-28
 * basic/transports/streamable-http: "closing that stream = cancellation"). A `tools/call` in
 * flight is cancelled by a `notifications/cancelled` naming its request id from the same World
 * session, or by its client closing the request's stream. What a cancelled call does is
 * CallCancellations' rule in the planner (README "Cancellation"); what the client gets is
 * nothing: the receiver of a cancelled request sends no response for it, so the POST's answer
 * drops it (withoutAnswersTo).
 */
import { randomUUID } from 'node:crypto';
import type { RpcClient } from '@world/runtime';
import type { LogSink } from '../log.js';
import type { RequestId } from './protocol.js';
import type { SdkAnswer } from './sdk-fetch-adapter.js';

/** One `tools/call`'s cancellation handle (callCancel). */
export interface CallCancel {
  /** sent as `planner.invoke`'s callId, named by `planner.call.cancelled` */
  callId: string;
  /** aborted when the client cancelled the call */
  signal: AbortSignal;
  /** the call ended: forget it */
  done: () => void;
}

/**
 * One call's cancellation (README "Cancellation"): a fresh `callId`, aborted by a
 * `notifications/cancelled` naming the request's id from its session (through `registry`) or by
 * the POST's stream closing (`closed`). On abort `onCancel` marks the request (its answer is
 * dropped) and `planner.call.cancelled` tells every planner replica, which stops the call if it
 * has not handed its effect to the broker yet.
 */
export function callCancel(args: {
  rpc: RpcClient;
  log: LogSink;
  registry: McpCancellations | undefined;
  credentialId: string;
  id: RequestId;
  closed: AbortSignal | undefined;
  onCancel: () => void;
}): CallCancel {
  const { rpc, log, registry, credentialId, id, closed, onCancel } = args;
  const callId = randomUUID();
  const abort = new AbortController();
  abort.signal.addEventListener(
    'abort',
    () => {
      onCancel();
      rpc.emit('planner.call.cancelled', { callId });
      log.info({ requestId: id, callId }, 'mcp tools/call cancelled by its client');
    },
    { once: true },
  );
  const cancel = () => abort.abort();
  const unregister = registry?.register(credentialId, id, cancel) ?? (() => undefined);
  closed?.addEventListener('abort', cancel, { once: true });
  if (closed?.aborted === true) cancel();
  return {
    callId,
    signal: abort.signal,
    done: () => {
      unregister();
      closed?.removeEventListener('abort', cancel);
    },
  };
}

/**
 * The `tools/call` requests a gateway has in flight, by World session (credential id) and
 * JSON-RPC request id, so a `notifications/cancelled` arriving on another POST finds its request.
 * Request ids are the client's: two calls in flight under one session with the same id are both
 * cancelled by a notification naming it. Only this gateway process's requests are known.
 */
export class McpCancellations {
  private readonly inflight = new Map<string, Set<() => void>>();

  /**
   * Registers one request's cancel until the returned function is called.
   * @param credentialId the session's credential id
   * @param id the request's JSON-RPC id
   * @param cancel what cancelling it does (aborts the call's signal)
   */
  register(credentialId: string, id: RequestId, cancel: () => void): () => void {
    const key = keyOf(credentialId, id);
    let cancels = this.inflight.get(key);
    if (cancels === undefined) {
      cancels = new Set();
      this.inflight.set(key, cancels);
    }
    cancels.add(cancel);
    return () => {
      const current = this.inflight.get(key);
      current?.delete(cancel);
      if (current?.size === 0) this.inflight.delete(key);
    };
  }

  /**
   * Cancels the session's in-flight requests with this id.
   * @returns how many were cancelled (0 when none is in flight: the notification is ignored, as
   *   MCP asks of a cancellation for an unknown or finished request)
   */
  cancel(credentialId: string, id: RequestId): number {
    const cancels = this.inflight.get(keyOf(credentialId, id));
    if (cancels === undefined) return 0;
    const all = [...cancels];
    for (const cancel of all) cancel();
    return all.length;
  }
}

/** "1" and 1 are different JSON-RPC ids. */
function keyOf(credentialId: string, id: RequestId): string {
  return `${credentialId} ${JSON.stringify(id)}`;
}

/**
 * The request ids a POST's `notifications/cancelled` messages name (`params.requestId`, a
 * string or number), from one message or a 2025-03-26 batch; other messages are ignored.
 */
export function cancelledRequestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
    if (method !== 'notifications/cancelled' || id !== undefined) continue;
    const requestId = (params as { requestId?: unknown } | null | undefined)?.requestId;
    if (typeof requestId === 'string' || typeof requestId === 'number') ids.push(requestId);
  }
  return ids;
}

/**
 * A buffered SDK answer without the responses to cancelled requests (MCP: no response is sent
 * for a cancelled request). The answer is SSE (`data:` lines, each one JSON-RPC message or a
 * batch array) or one JSON message or array; a message whose id is cancelled is dropped, and an
 * event or body left with none is dropped whole — so a POST whose only request was cancelled
 * ends with its stream closed and no message on it (HTTP 200, `text/event-stream`, empty body).
 * Anything that does not parse is kept as it is.
 */
export function withoutAnswersTo(answer: SdkAnswer, cancelled: ReadonlySet<RequestId>): SdkAnswer {
  if (answer.bytes === null || cancelled.size === 0) return answer;
  const contentType = headerOf(answer.headers, 'content-type') ?? '';
  const text = answer.bytes.toString('utf8');
  if (contentType.startsWith('application/json')) {
    const kept = keptMessages(text, cancelled);
    if (kept === undefined) return answer;
    if (kept === null) return emptyStream(answer);
    return withBody(answer, Buffer.from(kept));
  }
  const events = text.split('\n\n');
  const out: string[] = [];
  for (const event of events) {
    const lines = event.split('\n');
    const data = lines.findIndex((line) => line.startsWith('data: '));
    if (data < 0) {
      if (event.length > 0) out.push(event);
      continue;
    }
    const kept = keptMessages(lines[data]!.slice('data: '.length), cancelled);
    if (kept === undefined) out.push(event);
    else if (kept !== null)
      out.push([...lines.slice(0, data), `data: ${kept}`, ...lines.slice(data + 1)].join('\n'));
  }
  const body = out.length === 0 ? '' : `${out.join('\n\n')}\n\n`;
  return withBody(answer, Buffer.from(body));
}

/**
 * The JSON text of the messages left once cancelled ids are dropped: undefined when the text is
 * not JSON or nothing was dropped (keep as is), null when nothing is left.
 */
function keptMessages(text: string, cancelled: ReadonlySet<RequestId>): string | null | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const isCancelled = (m: unknown) =>
    typeof m === 'object' &&
    m !== null &&
    cancelled.has((m as { id?: unknown }).id as RequestId) &&
    !('method' in m);
  if (Array.isArray(value)) {
    const kept = value.filter((m) => !isCancelled(m));
    if (kept.length === value.length) return undefined;
    return kept.length === 0 ? null : JSON.stringify(kept);
  }
  return isCancelled(value) ? null : undefined;
}

function emptyStream(answer: SdkAnswer): SdkAnswer {
  const emptied = withBody(answer, Buffer.alloc(0));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(emptied.headers)) {
    if (name.toLowerCase() !== 'content-type') headers[name] = value;
  }
  headers['content-type'] = 'text/event-stream';
  return { ...emptied, headers };
}

/** The answer with other bytes: a length the SDK set no longer holds. */
function withBody(answer: SdkAnswer, bytes: Buffer): SdkAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name.toLowerCase() !== 'content-length') headers[name] = value;
  }
  return { ...answer, headers, bytes };
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}
