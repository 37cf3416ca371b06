import { randomUUID } from 'node:crypto';
import { NatsContext, ServerNats, type WritePacket } from '@nestjs/microservices';
import { connect, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  CONTRACTS,
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
}

/** A packet as the server reads it: Nest's fields plus World's call meta (RequestPacket). */
type IncomingPacket = CallMeta & { pattern: string; data: unknown; id?: string };

/** The fields of ServerNats that TypeScript declares private and a graceful close needs. */
interface ServerNatsInternals {
  natsClient: NatsConnection | null;
  subscriptions: Subscription[];
  statusEventEmitter: { removeAllListeners(): void };
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
      await served.run(
        () =>
          this.handleRequest(
            natsCtx,
            async () => this.transformToObservable(await handler(message.data, natsCtx)),
            respond,
          ) as unknown as Promise<void>,
      );
    } catch (err) {
      finish();
      throw err;
    }
  }

  /**
   * Graceful stop: drains the subscriptions (the server stops routing to this replica; what it
   * already routed here is still served), waits up to drainMs for in-flight requests to be
   * answered, then drains and closes the connection.
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
    if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
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

/**
 * A client of World's subjects over NATS native request-reply, speaking Nest's packet format
 * (`{pattern, data, id}` → `{id, response | err, isDisposed}`).
 */
export class NatsRpcClient implements RpcClient {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
  ) {}

  /** Connects to NATS. @throws when the server cannot be reached */
  static async connect(url: string, prefix: string, name: string): Promise<NatsRpcClient> {
    const nc = await connect({
      servers: [url],
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    return new NatsRpcClient(nc, prefix);
  }

  async request<S extends RequestSubject>(
    subject: S,
    data: RequestOf<S>,
    options: RequestOptions,
  ): Promise<ReplyOf<S>> {
    const packet = JSON.stringify({
      pattern: subject,
      data,
      id: randomUUID(),
      ...currentCallMeta(),
    });
    let reply: ReplyPacket;
    try {
      const msg = await this.nc.request(wireSubject(this.prefix, subject), packet, {
        timeout: options.timeoutMs,
      });
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
