import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { lastValueFrom, isObservable, type Observable } from 'rxjs';
import {
  CONTRACTS,
  SHUTDOWN_DRAIN_MS,
  TransportTimeoutError,
  errorFromWire,
  InternalError,
  isWireError,
  ServiceUnavailableError,
  type EventSubject,
  type ParsedRequestOf,
  type ReceiptOf,
  type ReplyOf,
  type RequestOf,
  type RequestSubject,
  type SurveySubject,
} from '@world/contracts';
import {
  adoptReplyInvocationId,
  errorClassOf,
  type RequestOptions,
  type RpcClient,
  type SurveyOptions,
} from './rpc.js';
import { InFlight } from './inflight.js';
import { acceptReceipt, onceReceiptChannel } from './receipt.js';
import { logger } from './logger.js';
import {
  REPLICA_ATTRIBUTE,
  SERVICE_ATTRIBUTE,
  currentCallMeta,
  serveMessage,
  type CallMeta,
  type ReceiptChannel,
} from './trace.js';

type Handler = (data: unknown, meta?: CallMeta, receipt?: ReceiptChannel) => Promise<unknown>;
type Listener = (data: unknown, meta?: CallMeta) => void;

/**
 * The embedded mode's message bus: the same subjects and contract messages as NATS, carried
 * inside one process. Messages are copied through JSON so both modes see identical values.
 */
export class InProcessBus {
  private readonly handlers = new Map<string, Handler[]>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly cursor = new Map<string, number>();
  private readonly answerers = new Map<string, Set<() => Promise<unknown>>>();

  /** Registers a request handler; several registrations share the work round-robin. */
  handle(subject: string, handler: Handler): () => void {
    const list = this.handlers.get(subject) ?? [];
    list.push(handler);
    this.handlers.set(subject, list);
    return () => {
      const current = this.handlers.get(subject) ?? [];
      this.handlers.set(
        subject,
        current.filter((h) => h !== handler),
      );
    };
  }

  /** Registers an event listener. */
  listen(subject: string, listener: Listener): () => void {
    const set = this.listeners.get(subject) ?? new Set();
    set.add(listener);
    this.listeners.set(subject, set);
    return () => set.delete(listener);
  }

  /**
   * Delivers a request to one handler, with the caller's call meta (trace parent, invocation id)
   * as NATS packets carry it, and the caller's receipt channel when it asked for a receipt.
   * @throws ServiceUnavailableError when none is registered
   */
  async request(
    subject: string,
    data: unknown,
    meta?: CallMeta,
    receipt?: ReceiptChannel,
  ): Promise<unknown> {
    const list = this.handlers.get(subject) ?? [];
    if (list.length === 0) throw new ServiceUnavailableError(`no service answers ${subject}`);
    const i = (this.cursor.get(subject) ?? 0) % list.length;
    this.cursor.set(subject, i + 1);
    return list[i]!(copy(data), meta, receipt);
  }

  /** Registers a survey answerer: every answerer of a subject answers each survey. */
  answer(subject: string, reply: () => Promise<unknown>): () => void {
    const set = this.answerers.get(subject) ?? new Set();
    set.add(reply);
    this.answerers.set(subject, set);
    return () => set.delete(reply);
  }

  /**
   * Asks every answerer of a subject and returns the replies that arrived within windowMs
   * (copied through JSON, in arrival order); one that throws is not heard (logged).
   */
  async survey(subject: string, windowMs: number): Promise<unknown[]> {
    const replies: unknown[] = [];
    let open = true;
    for (const reply of this.answerers.get(subject) ?? []) {
      queueMicrotask(() => {
        reply().then(
          (value) => void (open && replies.push(copy(value))),
          (err: unknown) => logger.warn({ subject, err }, 'survey reply failed; not answered'),
        );
      });
    }
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    open = false;
    return replies;
  }

  /** Delivers an event to every listener (asynchronously, like NATS). */
  publish(subject: string, data: unknown, meta?: CallMeta): void {
    const set = this.listeners.get(subject);
    if (set === undefined) return;
    const value = copy(data);
    for (const listener of set) queueMicrotask(() => listener(copy(value), meta));
  }
}

function copy(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/**
 * A Nest transport strategy that serves a module's message handlers on an InProcessBus, each
 * message in its caller's call context under a span named after the subject (as
 * PrefixedNatsServer does); close() stops taking work, then waits for what is in flight.
 */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly unregister: Array<() => void> = [];
  private readonly inflight = new InFlight();
  private readonly attributes: Record<string, string>;
  private readonly drainMs: number;

  /**
   * @param service the service name (span attribute), when known
   * @param replica the replica name (span attribute), when known
   * @param drainMs how long close() waits for in-flight requests (default SHUTDOWN_DRAIN_MS)
   */
  constructor(
    private readonly bus: InProcessBus,
    options: { service?: string; replica?: string; drainMs?: number } = {},
  ) {
    super();
    this.drainMs = options.drainMs ?? SHUTDOWN_DRAIN_MS;
    this.attributes = {
      ...(options.service !== undefined && { [SERVICE_ATTRIBUTE]: options.service }),
      ...(options.replica !== undefined && { [REPLICA_ATTRIBUTE]: options.replica }),
    };
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      if (handler.isEventHandler) {
        this.unregister.push(
          this.bus.listen(pattern, (data, meta) => {
            const served = serveMessage(pattern, meta ?? {}, this.attributes);
            void this.inflight
              .track(
                served.run(() => Promise.resolve(handler(data)).then((r) => toPromise(this, r))),
              )
              .catch((err) => {
                served.fail(errorClassOf(err));
                logger.error({ subject: pattern, err }, 'event handler failed');
              })
              .finally(() => served.end());
          }),
        );
      } else {
        this.unregister.push(
          this.bus.handle(pattern, async (data, meta, receipt) => {
            const served = serveMessage(pattern, meta ?? {}, this.attributes, receipt);
            this.inflight.enter();
            try {
              return await served.run(async () => toPromise(this, await handler(data)));
            } catch (err) {
              served.fail(errorClassOf(err));
              throw err;
            } finally {
              served.end();
              this.inflight.leave();
            }
          }),
        );
      }
    }
    callback();
  }

  /** Stops taking work, then waits up to drainMs for the requests in flight. */
  async close(): Promise<void> {
    for (const off of this.unregister.splice(0)) off();
    logger.info(
      {
        service: this.attributes[SERVICE_ATTRIBUTE],
        replica: this.attributes[REPLICA_ATTRIBUTE],
        inFlight: this.inflight.size,
      },
      'stopped taking work',
    );
    if (!(await this.inflight.idle(this.drainMs))) {
      logger.warn(
        { inFlight: this.inflight.size, drainMs: this.drainMs },
        'shutdown drain ended with requests in flight',
      );
    }
  }

  on(): void {}

  unwrap<T>(): T {
    return this.bus as T;
  }
}

async function toPromise(server: Server, result: unknown): Promise<unknown> {
  const stream = server.transformToObservable(result) as Observable<unknown>;
  return isObservable(stream) ? lastValueFrom(stream, { defaultValue: undefined }) : stream;
}

/** The in-process counterpart of NatsRpcClient. */
export class InProcessRpcClient implements RpcClient {
  constructor(private readonly bus: InProcessBus) {}

  async request<S extends RequestSubject>(
    subject: S,
    data: RequestOf<S>,
    options: RequestOptions<ReceiptOf<S>>,
  ): Promise<ReplyOf<S>> {
    let timer: NodeJS.Timeout | undefined;
    // The receipt comes back through a call into this request while it waits (copied through
    // JSON as a NATS receipt would be); once the request settled a receipt is refused.
    let waiting = true;
    const { onReceipt } = options;
    const receipt =
      onReceipt === undefined
        ? undefined
        : onceReceiptChannel(async (r) => waiting && acceptReceipt(subject, copy(r), onReceipt));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TransportTimeoutError(`${subject} did not answer within ${options.timeoutMs} ms`),
          ),
        options.timeoutMs,
      );
    });
    try {
      const reply = await Promise.race([
        this.bus.request(subject, data, currentCallMeta(), receipt),
        timeout,
      ]);
      adoptReplyInvocationId(reply);
      return JSON.parse(JSON.stringify(reply ?? null)) as ReplyOf<S>;
    } catch (err) {
      if (isWireError(err)) throw errorFromWire(err);
      if (err instanceof Error && 'errorClass' in err) throw err;
      logger.error({ subject, err }, 'in-process request failed with an untyped error');
      throw new InternalError();
    } finally {
      waiting = false;
      clearTimeout(timer);
    }
  }

  async survey<S extends SurveySubject>(
    subject: S,
    _data: RequestOf<S>,
    options: SurveyOptions,
  ): Promise<Array<ReplyOf<S>>> {
    const replies = await this.bus.survey(subject, options.windowMs);
    const parsed: Array<ReplyOf<S>> = [];
    for (const reply of replies) {
      const result = CONTRACTS[subject].reply.safeParse(reply);
      if (result.success) parsed.push(result.data as ReplyOf<S>);
      else logger.warn({ subject }, 'dropped a survey reply off its schema');
    }
    return parsed;
  }

  answer<S extends SurveySubject>(subject: S, reply: () => Promise<ReplyOf<S>>): () => void {
    return this.bus.answer(subject, reply);
  }

  emit<S extends EventSubject>(subject: S, data: RequestOf<S>): void {
    this.bus.publish(subject, data, currentCallMeta());
  }

  subscribe<S extends EventSubject>(
    subject: S,
    listener: (data: ParsedRequestOf<S>) => void,
  ): () => void {
    return this.bus.listen(subject, (data) => {
      const parsed = CONTRACTS[subject].request.safeParse(data);
      if (parsed.success) listener(parsed.data as ParsedRequestOf<S>);
    });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
