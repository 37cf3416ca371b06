import { randomUUID } from 'node:crypto';
import {
  NatsContext,
  ServerNats,
  type MessageHandler,
  type WritePacket,
} from '@nestjs/microservices';
import { isObservable } from 'rxjs';
import {
  connect,
  createInbox,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import {
  COMMIT_MESSAGE_MAX_BYTES,
  CONTRACTS,
  NATS_MAX_PAYLOAD_BYTES,
  SHUTDOWN_DRAIN_MS,
  TransportTimeoutError,
  errorFromWire,
  InternalError,
  isWireError,
  ServiceUnavailableError,
  wireSubject,
  type EventSubject,
  type ParsedRequestOf,
  type ReplyOf,
  type RequestOf,
  type RequestSubject,
  type SubjectName,
} from '@world/contracts';
import { maxPayloadShortfall, watchMaxPayload } from './bus-fit.js';
import { ConfigError } from './config.js';
import type { ReplyPacket, RequestOptions, RpcClient } from './rpc.js';
import { InFlight } from './inflight.js';
import { logger } from './logger.js';
import { adoptReplyInvocationId, errorClassOf } from './rpc.js';
import {
  REPLICA_ATTRIBUTE,
  SERVICE_ATTRIBUTE,
  currentCallMeta,
  serveMessage,
  type CallMeta,
} from './trace.js';

/** Where a service's NATS traffic goes: the server URL, the subject prefix, the queue group. */
export interface NatsTransportOptions {
  url: string;
  prefix: string;
  /** the service's queue group, so replicas share the work (DESIGN.md §1) */
  queue: string;
  /** connection name shown by the NATS server */
  name?: string;
  /** the replica serving (span attribute) */
  replica?: string;
  /** how long close() waits for in-flight requests once it stopped taking work (default SHUTDOWN_DRAIN_MS) */
  drainMs?: number;
  /**
   * A connection to serve on instead of opening one (the process's NatsRpcClient connection, so
   * its requests and this server's replies share a socket and a write). The server does not own
   * it: close() drains the server's subscriptions and waits for its in-flight requests, and
   * leaves the connection to its owner.
   */
  connection?: NatsConnection;
}

/** A packet as the server reads it: Nest's fields plus World's call meta (RequestPacket). */
type IncomingPacket = CallMeta & { pattern: string; data: unknown; id?: string };

/** The fields of ServerNats that TypeScript declares private and a graceful close needs. */
interface ServerNatsInternals {
  natsClient: NatsConnection | null;
  subscriptions: Subscription[];
  statusEventEmitter: { removeAllListeners(): void };
}

/**
 * The parts of nats.js's ProtocolHandler (@nats-io/nats-core 3.4.0 lib/protocol.js) that
 * coalesceWrites replaces or uses: the outbound DataBuffer, its inline-flush threshold, the flush.
 */
interface ProtocolInternals {
  outbound: {
    length(): number;
    size(): number;
    fill(data: Uint8Array, ...more: Uint8Array[]): unknown;
  };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

const encoder = new TextEncoder();

/**
 * Makes a connection write once per event-loop turn instead of once per microtask checkpoint.
 * nats.js buffers every protocol command and flushes the buffer on a microtask queued by the
 * first command; each flush is one socket write, and socket writes are most of a service's
 * transport CPU. Here the flush waits for setImmediate (the end of the current poll phase), so
 * the commands of one turn — a reply and the request or event its handler sent in the same turn,
 * replies to messages that arrived in one read — go out in one write. Order on the wire is
 * unchanged; a buffer past the connection's pending limit still flushes at once, and flush()
 * (PING) and drain still flush immediately. A connection whose internals do not have the
 * expected shape (another nats.js version) is left as it is.
 * @param nc a connection from @nats-io/transport-node 3.4.0's connect()
 */
export function coalesceWrites(nc: NatsConnection): void {
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolInternals> }).protocol;
  if (
    protocol === undefined ||
    typeof protocol.sendCommand !== 'function' ||
    typeof protocol.flushPending !== 'function' ||
    typeof protocol.pendingLimit !== 'number' ||
    typeof protocol.outbound?.fill !== 'function' ||
    typeof protocol.outbound.length !== 'function' ||
    typeof protocol.outbound.size !== 'function'
  )
    return;
  const p = protocol as ProtocolInternals;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    p.flushPending();
  };
  p.sendCommand = (cmd, ...payloads) => {
    const wasEmpty = p.outbound.length() === 0;
    p.outbound.fill(typeof cmd === 'string' ? encoder.encode(cmd) : cmd, ...payloads);
    if (wasEmpty) {
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    } else if (p.outbound.size() >= p.pendingLimit) {
      p.flushPending();
    }
  };
}

/**
 * Refuses a NATS server whose `max_payload` (from its INFO at connect) is below what World's
 * largest commit needs (COMMIT_MESSAGE_MAX_BYTES): on such a server an effect could run and
 * then its commit be refused by the bus (DESIGN.md §1; ecosystem §8 "The machine's own NATS").
 * Every service connects through here, so each one exits 2 with this line before it serves.
 * @param nc a connected connection (closed here before the throw)
 * @param url the server's URL, for the message
 * @throws ConfigError `NATS max_payload is <n> bytes at <url>; World needs at least <m> …`
 */
export async function assertMaxPayload(nc: NatsConnection, url: string): Promise<void> {
  const maxPayload = nc.info?.max_payload;
  if (maxPayload === undefined || maxPayload >= COMMIT_MESSAGE_MAX_BYTES) return;
  await nc.close().catch(() => undefined);
  throw new ConfigError(maxPayloadProblem(maxPayload, url));
}

/** The one line a service prints when the server's max_payload is too small (assertMaxPayload). */
export function maxPayloadProblem(maxPayload: number, url: string): string {
  return (
    `NATS max_payload is ${maxPayload} bytes at ${url}; World needs at least ` +
    `${COMMIT_MESSAGE_MAX_BYTES} (its largest commit message, COMMIT_MESSAGE_MAX_BYTES): ` +
    `set max_payload: ${NATS_MAX_PAYLOAD_BYTES} in the server's configuration (infra/nats/nats.conf)`
  );
}

/**
 * The bytes a request packet puts on the wire: Nest's `{pattern, data, id}` with World's call
 * meta (trace parent, invocation id), as JSON. NatsRpcClient sends exactly this; the commit size
 * bound (COMMIT_MESSAGE_MAX_BYTES) is measured with it.
 */
export function requestPacket(subject: RequestSubject, data: unknown): string {
  return JSON.stringify({ pattern: subject, data, id: randomUUID(), ...currentCallMeta() });
}

function isBroadcast(subject: string): boolean {
  const contract = (CONTRACTS as Record<string, { kind: string; broadcast?: boolean }>)[subject];
  return contract?.kind === 'event' && contract.broadcast === true;
}

/**
 * NestJS's NATS transport with World's subject prefix: handlers are declared with the bare
 * subject (`@MessagePattern('ledger.commit')`) and subscribed as `<prefix>.ledger.commit` in the
 * service's queue group. Broadcast events subscribe outside the group so every replica sees them.
 * Every message is served inside the call context its packet carries (trace parent, invocation
 * id) under a span named after the subject; close() drains gracefully (issue 6 "Operations").
 */
export class PrefixedNatsServer extends ServerNats {
  private readonly inflight = new InFlight();
  private readonly attributes: Record<string, string>;
  /** Nest's default start hook (it only runs the handler): no hooks set means the direct reply */
  private readonly defaultStartHook: ServerNats['onProcessingStartHook'];

  constructor(private readonly transport: NatsTransportOptions) {
    super({
      servers: [transport.url],
      queue: transport.queue,
      name: transport.name ?? transport.queue,
    } as never);
    this.attributes = {
      [SERVICE_ATTRIBUTE]: transport.queue,
      ...(transport.replica !== undefined && { [REPLICA_ATTRIBUTE]: transport.replica }),
    };
    this.defaultStartHook = this.onProcessingStartHook;
  }

  /**
   * The server's connection: the shared one when the options name it (not owned), else a new one
   * (owned) that writes once per event-loop turn (coalesceWrites).
   * @throws when the server cannot be reached; ConfigError when its max_payload is too small
   */
  override async createNatsClient(): Promise<NatsConnection> {
    if (this.transport.connection !== undefined) return this.transport.connection;
    const nc = (await super.createNatsClient()) as unknown as NatsConnection;
    await assertMaxPayload(nc, this.transport.url);
    coalesceWrites(nc);
    return nc;
  }

  /** Requests and events accepted and not yet answered. */
  get inFlight(): number {
    return this.inflight.size;
  }

  /**
   * Serves one message in its packet's call context, under a span named after the subject; the
   * span ends (and the message stops counting as in flight) when the last reply is published.
   */
  override async handleMessage(channel: string, natsMsg: Msg): Promise<void> {
    const handler = this.getHandlerByPattern(channel);
    if (handler === null) return super.handleMessage(channel, natsMsg as never);
    const message = (await this.deserializer.deserialize(natsMsg, {
      channel,
      replyTo: natsMsg.reply,
    })) as IncomingPacket;
    const natsCtx = new NatsContext([natsMsg.subject, natsMsg.headers as never]);
    const served = serveMessage(channel, message, this.attributes);
    this.inflight.enter();
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      served.end();
      this.inflight.leave();
    };
    if (message.id === undefined) {
      try {
        await served.run(() => this.handleEvent(channel, message as never, natsCtx));
      } finally {
        finish();
      }
      return;
    }
    const publish = this.getPublisher(natsMsg as never, message.id, natsCtx);
    const respond = (packet: WritePacket) => {
      if (packet.err !== undefined && packet.err !== null) served.fail(errorClassOf(packet.err));
      try {
        return publish(packet);
      } finally {
        if (packet.isDisposed === true) finish();
      }
    };
    try {
      await served.run(async () => {
        const result: unknown = await handler(message.data, natsCtx);
        if (
          isObservable(result) ||
          this.onProcessingStartHook !== this.defaultStartHook ||
          this.onProcessingEndHook !== undefined
        ) {
          // An exception filter's error (or a stream), or processing hooks: Nest's own path.
          await (this.handleRequest(
            natsCtx,
            async () => this.transformToObservable(result),
            respond,
          ) as unknown as Promise<void>);
          return;
        }
        // One value: answered as Nest's send() answers it — one `{response, isDisposed: true}`
        // packet on the next tick — without building its rxjs pipeline for every request.
        process.nextTick(() => {
          try {
            respond({ response: result, isDisposed: true });
          } catch (err) {
            this.logger.error(err);
          }
        });
      });
    } catch (err) {
      finish();
      throw err;
    }
  }

  /**
   * The handler of a subscribed channel. The channels are the handler map's own keys (plain
   * subjects), so the lookup is direct; Nest's lookup first tries JSON.parse on the channel,
   * which throws — a SyntaxError with a stack — for every message on a plain subject. Anything
   * else goes to Nest's lookup.
   */
  override getHandlerByPattern(pattern: string): MessageHandler | null {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  /**
   * Graceful stop: drains the subscriptions (the server stops routing to this replica; what it
   * already routed here is still served), waits up to drainMs for in-flight requests to be
   * answered, then drains and closes the connection (unless it is a shared one, which its owner
   * closes).
   */
  override async close(): Promise<void> {
    const self = this as unknown as ServerNatsInternals;
    const nc = self.natsClient;
    if (nc === null || nc === undefined) return;
    self.natsClient = null;
    await Promise.allSettled(self.subscriptions.splice(0).map((sub) => sub.drain()));
    logger.info(
      {
        service: this.transport.queue,
        replica: this.transport.replica,
        inFlight: this.inflight.size,
      },
      'stopped taking work',
    );
    const drainMs = this.transport.drainMs ?? SHUTDOWN_DRAIN_MS;
    if (!(await this.inflight.idle(drainMs))) {
      logger.warn(
        { service: this.transport.queue, inFlight: this.inflight.size, drainMs },
        'shutdown drain ended with requests in flight',
      );
    }
    if (this.transport.connection === undefined && !nc.isClosed())
      await nc.drain().catch(() => nc.close());
    self.statusEventEmitter.removeAllListeners();
  }

  override bindEvents(client: never): void {
    const nats = client as unknown as NatsConnection;
    const subscriptions = (this as unknown as { subscriptions: Subscription[] }).subscriptions;
    for (const [channel, handler] of this.messageHandlers) {
      const queue =
        handler.isEventHandler && isBroadcast(channel) ? undefined : this.transport.queue;
      subscriptions.push(
        nats.subscribe(wireSubject(this.transport.prefix, channel as SubjectName), {
          queue,
          callback: (this.getMessageHandler(channel) as (...a: unknown[]) => void).bind(this),
        }),
      );
    }
  }
}

/** A request sent through NatsRpcClient's inbox and not answered yet. */
interface PendingReply {
  subject: string;
  resolve(msg: Msg): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A client of World's subjects over NATS native request-reply, speaking Nest's packet format
 * (`{pattern, data, id}` → `{id, response | err, isDisposed}`).
 *
 * Replies come to one inbox subscription of the client's own (`_INBOX.<nuid>.<token>`, as nats.js's
 * muxed request does) and are matched to their request by token; a request's timeout error is
 * made only when its timer fires (nats.js's request builds a RequestError and a TimeoutError,
 * each with a stack, for every request, and a third on every answer). The connection writes once
 * per event-loop turn (coalesceWrites).
 */
export class NatsRpcClient implements RpcClient {
  private readonly pending = new Map<string, PendingReply>();
  /** the reply subject prefix: `_INBOX.<nuid>.` */
  private readonly inbox = `${createInbox()}.`;
  private nextToken = 0;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly url: string,
  ) {
    nc.subscribe(`${this.inbox}*`, { callback: (err, msg) => this.onReply(err, msg) });
    void nc.closed().then(() => this.failPending('connection closed'));
    watchMaxPayload(nc, () => this.commitFitProblem());
  }

  /** The server's max_payload as of the last (re)connect, against the commit bound (bus-fit.ts). */
  commitFitProblem(): string | null {
    return maxPayloadShortfall(this.nc, (maxPayload) => maxPayloadProblem(maxPayload, this.url));
  }

  /**
   * Connects to NATS.
   * @throws when the server cannot be reached; ConfigError when its max_payload is below
   *   COMMIT_MESSAGE_MAX_BYTES (assertMaxPayload)
   */
  static async connect(url: string, prefix: string, name: string): Promise<NatsRpcClient> {
    const nc = await connect({
      servers: [url],
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    await assertMaxPayload(nc, url);
    coalesceWrites(nc);
    return new NatsRpcClient(nc, prefix, url);
  }

  /**
   * The client's connection, for a PrefixedNatsServer of the same process to serve on
   * (NatsTransportOptions.connection); the client keeps owning it (close()).
   */
  get connection(): NatsConnection {
    return this.nc;
  }

  async request<S extends RequestSubject>(
    subject: S,
    data: RequestOf<S>,
    options: RequestOptions,
  ): Promise<ReplyOf<S>> {
    const packet = requestPacket(subject, data);
    const msg = await this.send(subject, packet, options.timeoutMs);
    let reply: ReplyPacket;
    try {
      reply = msg.json<ReplyPacket>();
    } catch (err) {
      throw transportError(subject, err, options.timeoutMs);
    }
    if (reply.err !== undefined && reply.err !== null) {
      if (isWireError(reply.err)) throw errorFromWire(reply.err);
      logger.error({ subject, err: reply.err }, 'a service answered with an untyped error');
      throw new InternalError();
    }
    adoptReplyInvocationId(reply.response);
    return reply.response as ReplyOf<S>;
  }

  /**
   * Publishes one request packet with a reply subject on the client's inbox and resolves with
   * the reply message.
   * @throws (rejects) ServiceUnavailableError when no service subscribes to the subject, the
   * publish fails or the connection closes first; TransportTimeoutError after timeoutMs
   */
  private send(subject: RequestSubject, packet: string, timeoutMs: number): Promise<Msg> {
    const wire = wireSubject(this.prefix, subject);
    if (!(timeoutMs >= 1) || this.nc.isClosed() || this.nc.isDraining()) {
      // nats.js's own checks and errors (bad timeout, closed or draining connection), as before.
      return this.nc
        .request(wire, packet, { timeout: timeoutMs })
        .catch((err: unknown) => Promise.reject(transportError(subject, err, timeoutMs)));
    }
    return new Promise<Msg>((resolve, reject) => {
      const token = (this.nextToken++).toString(36);
      const timer = setTimeout(() => {
        if (this.pending.delete(token))
          reject(new TransportTimeoutError(`${subject} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(token, { subject, resolve, reject, timer });
      try {
        this.nc.publish(wire, packet, { reply: this.inbox + token });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(token);
        reject(transportError(subject, err, timeoutMs));
      }
    });
  }

  /** Hands a message on the inbox to its request (a late or unknown one is dropped, as nats.js does). */
  private onReply(err: Error | null, msg: Msg): void {
    if (err !== null) {
      // An error on the inbox subscription (a permission violation): nats.js fails every
      // pending request with it.
      this.failPending(err.message);
      return;
    }
    const token = msg.subject.substring(this.inbox.length);
    const pending = this.pending.get(token);
    if (pending === undefined) return;
    this.pending.delete(token);
    clearTimeout(pending.timer);
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      pending.reject(new ServiceUnavailableError(`no service answers ${pending.subject}`));
    } else {
      pending.resolve(msg);
    }
  }

  /** Fails every pending request as a transport failure with the given reason. */
  private failPending(reason: string): void {
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) {
      clearTimeout(p.timer);
      p.reject(new ServiceUnavailableError(`${p.subject} failed in transport: ${reason}`));
    }
  }

  emit<S extends EventSubject>(subject: S, data: RequestOf<S>): void {
    this.nc.publish(
      wireSubject(this.prefix, subject),
      JSON.stringify({ pattern: subject, data, ...currentCallMeta() }),
    );
  }

  subscribe<S extends EventSubject>(
    subject: S,
    listener: (data: ParsedRequestOf<S>) => void,
  ): () => void {
    const sub = this.nc.subscribe(wireSubject(this.prefix, subject), {
      callback: (err, msg) => {
        if (err !== null) return;
        try {
          const packet = msg.json<{ data: unknown }>();
          const parsed = CONTRACTS[subject].request.safeParse(packet.data);
          if (parsed.success) listener(parsed.data as ParsedRequestOf<S>);
        } catch (e) {
          logger.warn({ subject, err: e }, 'dropped a malformed event');
        }
      },
    });
    return () => sub.unsubscribe();
  }

  async ping(): Promise<void> {
    await this.nc.flush();
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}

function transportError(subject: string, err: unknown, timeoutMs: number): Error {
  const e = err as Error & { isNoResponders?: () => boolean; cause?: unknown };
  const noResponders =
    (typeof e.isNoResponders === 'function' && e.isNoResponders()) ||
    (e.cause as Error | undefined)?.name === 'NoRespondersError' ||
    e.name === 'NoRespondersError';
  if (noResponders) return new ServiceUnavailableError(`no service answers ${subject}`);
  const timedOut =
    e.name === 'TimeoutError' || (e.cause as Error | undefined)?.name === 'TimeoutError';
  if (timedOut)
    return new TransportTimeoutError(`${subject} did not answer within ${timeoutMs} ms`);
  return new ServiceUnavailableError(`${subject} failed in transport: ${e.message}`);
}
