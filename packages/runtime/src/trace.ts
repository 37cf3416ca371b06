import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Per-call context carried across awaits: the invocation id (every log line written inside it
 * carries it) and the trace context (every request sent inside it carries it).
 */
export interface CallContext {
  invocationId?: string;
  /** a W3C traceparent to forward when no OpenTelemetry context is set */
  traceparent?: string;
  /** the OpenTelemetry context whose span is the call's current span */
  otel?: Context;
  /**
   * The context this one is a phase span of (set by inSpan): an invocation id adopted inside the
   * phase reaches it too, so the enclosing request's own lines and span carry the id.
   */
  enclosing?: CallContext;
  /** the served request's way back to its caller for a receipt (receipt.ts confirmReceipt) */
  receipt?: ReceiptChannel;
}

/**
 * A served request's way back to its caller for a receipt (receipt.ts): sends the receipt and
 * resolves whether the caller still waits (true: go on). It never rejects: a caller that cannot
 * be asked is one that does not wait.
 */
export type ReceiptChannel = (receipt: unknown) => Promise<boolean>;

/** What a request or event packet carries besides its data (the NATS packet, the in-process bus). */
export interface CallMeta {
  /** W3C trace context of the caller (`00-<trace id>-<span id>-<flags>`) */
  traceparent?: string;
  /** the invocation the message belongs to, when the caller handles one */
  invocationId?: string;
}

/** Span kinds, re-exported so services need no OpenTelemetry import of their own. */
export { SpanKind };

/** The name World's spans are recorded under (`trace.getTracer`). */
const TRACER_NAME = 'world';

/** Span attribute naming the service that served a span (`ledger`, `broker`, …). */
export const SERVICE_ATTRIBUTE = 'world.service';
/** Span attribute naming the replica that served a span. */
export const REPLICA_ATTRIBUTE = 'world.replica';
/** Span attribute carrying the invocation id, once the call has one. */
export const INVOCATION_ATTRIBUTE = 'world.invocation_id';
/** Span attribute carrying the call's episode. */
export const EPISODE_ATTRIBUTE = 'world.episode';
/** Span attribute carrying the log entry index a call committed. */
export const ENTRY_INDEX_ATTRIBUTE = 'world.entry_index';

const storage = new AsyncLocalStorage<CallContext>();
// One propagator, not the global one: World's hops speak W3C trace context whatever an SDK
// registers (ecosystem: "one call is one trace").
const propagator = new W3CTraceContextPropagator();

/**
 * Runs `fn` with a call context merged over the current one; logs and outgoing requests inside it
 * carry its fields. A new invocation id is also set on the current span.
 */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  const merged = { ...storage.getStore(), ...context };
  if (context.invocationId !== undefined && merged.otel !== undefined) {
    trace.getSpan(merged.otel)?.setAttribute(INVOCATION_ATTRIBUTE, context.invocationId);
  }
  return storage.run(merged, fn);
}

/** The current call context, if any. */
export function callContext(): CallContext | undefined {
  return storage.getStore();
}

/**
 * Adopts an invocation id learned from a reply (the planner mints MCP task ids, so the gateway
 * learns its call's id only from `planner.invoke`'s answer): the current context takes it when
 * it has none, and so do the contexts it is a phase span of (inSpan) — the gateway's HTTP
 * request whose `http request` line is written after the MCP `tools/call` span ended — so the
 * lines written after it carry it. A context with an id keeps its own.
 */
export function adoptInvocationId(invocationId: string): void {
  for (
    let store = storage.getStore();
    store !== undefined && store.invocationId === undefined;
    store = store.enclosing
  ) {
    store.invocationId = invocationId;
    if (store.otel !== undefined)
      trace.getSpan(store.otel)?.setAttribute(INVOCATION_ATTRIBUTE, invocationId);
  }
}

/**
 * The current W3C traceparent (the current span's, else a forwarded one), if any.
 * @internal exported for trace.spec.ts
 */
export function currentTraceparent(): string | undefined {
  const store = storage.getStore();
  if (store === undefined) return undefined;
  if (store.otel !== undefined) {
    const carrier: Record<string, string> = {};
    propagator.inject(store.otel, carrier, defaultTextMapSetter);
    if (carrier.traceparent !== undefined) return carrier.traceparent;
  }
  return store.traceparent;
}

/** The meta an outgoing packet carries: the current traceparent and invocation id. */
export function currentCallMeta(): CallMeta {
  const store = storage.getStore();
  if (store === undefined) return {};
  return { traceparent: currentTraceparent(), invocationId: store.invocationId };
}

/** The trace id of the current span when it is valid (log lines carry it), else undefined. */
export function currentTraceId(): string | undefined {
  const otel = storage.getStore()?.otel;
  if (otel === undefined) return undefined;
  const spanContext = trace.getSpanContext(otel);
  return spanContext !== undefined && trace.isSpanContextValid(spanContext)
    ? spanContext.traceId
    : undefined;
}

/**
 * One served request or event: its span (named after the subject or HTTP route) and the call
 * context its handler runs in. Without a registered tracer provider the span is non-recording
 * and carries the caller's span context on, so the trace id still crosses every hop.
 */
export class ServedCall {
  private ended = false;

  constructor(
    readonly span: Span,
    readonly context: CallContext,
  ) {}

  /** Runs `fn` inside the call's context (exactly this context, not merged with the caller's). */
  run<T>(fn: () => T): T {
    return storage.run(this.context, fn);
  }

  /** Marks the span failed with a short, token-free description (an error class). */
  fail(description: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: description });
  }

  /** Ends the span (once; later calls do nothing). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end();
  }
}

/**
 * Starts the span of a request or event served from the transport, in the context the packet's
 * traceparent names (or a new trace), with the packet's invocation id.
 * @param subject the bare subject (`ledger.commit`): the span's name
 * @param meta the packet's traceparent and invocation id
 * @param attributes service and replica attributes of the server
 * @param receipt the way back to the caller for a receipt, when the caller asked for one
 */
export function serveMessage(
  subject: string,
  meta: CallMeta,
  attributes: Attributes,
  receipt?: ReceiptChannel,
): ServedCall {
  const parent =
    typeof meta.traceparent === 'string'
      ? propagator.extract(ROOT_CONTEXT, { traceparent: meta.traceparent }, defaultTextMapGetter)
      : ROOT_CONTEXT;
  const invocationId = typeof meta.invocationId === 'string' ? meta.invocationId : undefined;
  const span = trace.getTracer(TRACER_NAME).startSpan(
    subject,
    {
      kind: SpanKind.SERVER,
      attributes: {
        ...attributes,
        'messaging.destination.name': subject,
        ...(invocationId !== undefined && { [INVOCATION_ATTRIBUTE]: invocationId }),
      },
    },
    parent,
  );
  return new ServedCall(span, {
    invocationId,
    otel: trace.setSpan(parent, span),
    ...(receipt !== undefined && { receipt }),
  });
}

/**
 * Starts the span of an HTTP request: its `traceparent` (and `tracestate`) header continue the
 * caller's trace, else a new trace starts. The span is named after the method until the route
 * is known (ServedCall.span.updateName).
 * @param method the HTTP method
 * @param headers the request's headers
 * @param attributes service and replica attributes of the server
 */
export function serveHttp(
  method: string,
  headers: IncomingHttpHeaders,
  attributes: Attributes,
): ServedCall {
  const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const span = trace
    .getTracer(TRACER_NAME)
    .startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { ...attributes, 'http.request.method': method } },
      parent,
    );
  return new ServedCall(span, { otel: trace.setSpan(parent, span) });
}

/**
 * Runs `fn` inside a child span of the current call's span (a phase of a call: plan, execute,
 * finish, commit; or the MCP request span), so requests sent inside it carry that span as their
 * parent. A throw marks the span failed with the error's class and is rethrown; the span ends
 * when `fn` settles. Outside a call context the span starts a trace of its own.
 * @param name the span name (OpenTelemetry MCP / GenAI semantic conventions where they name one)
 * @param attributes identifiers only (ids, names, indexes): never arguments or results
 * @param parent the context to start under instead of the current call's (a caller's
 *   `params._meta.traceparent`)
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => T | Promise<T>,
  options: { kind?: SpanKind; parent?: Context; errorType?: (err: unknown) => string } = {},
): Promise<T> {
  const enclosing = storage.getStore();
  const store = enclosing ?? {};
  const parent = options.parent ?? store.otel ?? ROOT_CONTEXT;
  const span = trace
    .getTracer(TRACER_NAME)
    .startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent);
  try {
    // A copy, so the phase's span is the current one inside it only; `enclosing` lets an id
    // adopted inside reach the request it is a phase of (adoptInvocationId).
    const phase: CallContext = { ...store, otel: trace.setSpan(parent, span), enclosing };
    return await storage.run(phase, () => fn(span));
  } catch (err) {
    const errorClass =
      options.errorType?.(err) ??
      (typeof (err as { errorClass?: unknown })?.errorClass === 'string'
        ? (err as { errorClass: string }).errorClass
        : err instanceof Error
          ? err.name
          : 'Error');
    span.setAttribute('error.type', errorClass);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorClass });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * The context a W3C `traceparent` (and `tracestate`) names, e.g. from an MCP request's
 * `params._meta` (OpenTelemetry MCP semantic conventions: "context propagation in `_meta`"), or
 * undefined when `traceparent` is absent or not a valid W3C value.
 */
export function contextOfTraceparent(
  traceparent: unknown,
  tracestate?: unknown,
): Context | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const carrier: Record<string, string> = { traceparent };
  if (typeof tracestate === 'string') carrier.tracestate = tracestate;
  const context = propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  const spanContext = trace.getSpanContext(context);
  return spanContext !== undefined && trace.isSpanContextValid(spanContext) ? context : undefined;
}

/** Sets attributes (ids only) on the current call's span, when there is one. */
export function annotateSpan(attributes: Attributes): void {
  const otel = storage.getStore()?.otel;
  if (otel !== undefined) trace.getSpan(otel)?.setAttributes(attributes);
}
