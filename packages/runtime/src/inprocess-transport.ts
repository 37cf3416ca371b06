import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { lastValueFrom, isObservable, type Observable } from 'rxjs';
import {
  CONTRACTS,
  TransportTimeoutError,
  errorFromWire,
  InternalError,
  isWireError,
  ServiceUnavailableError,
  type EventSubject,
  type ParsedRequestOf,
  type ReplyOf,
  type RequestOf,
  type RequestSubject,
} from '@world/contracts';
import type { RequestOptions, RpcClient } from './rpc.js';
import { logger } from './logger.js';

type Handler = (data: unknown) => Promise<unknown>;
type Listener = (data: unknown) => void;

/**
 * The embedded mode's message bus: the same subjects and contract messages as NATS, carried
 * inside one process. Messages are copied through JSON so both modes see identical values.
 */
export class InProcessBus {
  private readonly handlers = new Map<string, Handler[]>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly cursor = new Map<string, number>();

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

  /** Delivers a request to one handler. @throws ServiceUnavailableError when none is registered */
  async request(subject: string, data: unknown): Promise<unknown> {
    const list = this.handlers.get(subject) ?? [];
    if (list.length === 0) throw new ServiceUnavailableError(`no service answers ${subject}`);
    const i = (this.cursor.get(subject) ?? 0) % list.length;
    this.cursor.set(subject, i + 1);
    return list[i]!(copy(data));
  }

  /** Delivers an event to every listener (asynchronously, like NATS). */
  publish(subject: string, data: unknown): void {
    const set = this.listeners.get(subject);
    if (set === undefined) return;
    const value = copy(data);
    for (const listener of set) queueMicrotask(() => listener(copy(value)));
  }
}

function copy(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** A Nest transport strategy that serves a module's message handlers on an InProcessBus. */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private readonly unregister: Array<() => void> = [];

  constructor(private readonly bus: InProcessBus) {
    super();
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      if (handler.isEventHandler) {
        this.unregister.push(
          this.bus.listen(pattern, (data) => {
            void Promise.resolve(handler(data)).then((r) => toPromise(this, r)).catch((err) => {
              logger.error({ subject: pattern, err }, 'event handler failed');
            });
          }),
        );
      } else {
        this.unregister.push(this.bus.handle(pattern, async (data) => toPromise(this, await handler(data))));
      }
    }
    callback();
  }

  close(): void {
    for (const off of this.unregister.splice(0)) off();
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
    options: RequestOptions,
  ): Promise<ReplyOf<S>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TransportTimeoutError(`${subject} did not answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
    });
    try {
      const reply = await Promise.race([this.bus.request(subject, data), timeout]);
      return JSON.parse(JSON.stringify(reply ?? null)) as ReplyOf<S>;
    } catch (err) {
      if (isWireError(err)) throw errorFromWire(err);
      if (err instanceof Error && 'errorClass' in err) throw err;
      logger.error({ subject, err }, 'in-process request failed with an untyped error');
      throw new InternalError();
    } finally {
      clearTimeout(timer);
    }
  }

  emit<S extends EventSubject>(subject: S, data: RequestOf<S>): void {
    this.bus.publish(subject, data);
  }

  subscribe<S extends EventSubject>(subject: S, listener: (data: ParsedRequestOf<S>) => void): () => void {
    return this.bus.listen(subject, (data) => {
      const parsed = CONTRACTS[subject].request.safeParse(data);
      if (parsed.success) listener(parsed.data as ParsedRequestOf<S>);
    });
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
