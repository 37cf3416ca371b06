import { randomUUID } from 'node:crypto';
import { ServerNats } from '@nestjs/microservices';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  CONTRACTS,
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
import { logger } from './logger.js';
import { currentTraceparent } from './trace.js';

/** Where a service's NATS traffic goes: the server URL, the subject prefix, the queue group. */
export interface NatsTransportOptions {
  url: string;
  prefix: string;
  /** the service's queue group, so replicas share the work (DESIGN.md §1) */
  queue: string;
  /** connection name shown by the NATS server */
  name?: string;
}

function isBroadcast(subject: string): boolean {
  const contract = (CONTRACTS as Record<string, { kind: string; broadcast?: boolean }>)[subject];
  return contract?.kind === 'event' && contract.broadcast === true;
}

/**
 * NestJS's NATS transport with World's subject prefix: handlers are declared with the bare
 * subject (`@MessagePattern('ledger.commit')`) and subscribed as `<prefix>.ledger.commit` in the
 * service's queue group. Broadcast events subscribe outside the group so every replica sees them.
 */
export class PrefixedNatsServer extends ServerNats {
  constructor(private readonly transport: NatsTransportOptions) {
    super({
      servers: [transport.url],
      queue: transport.queue,
      name: transport.name ?? transport.queue,
      gracefulShutdown: true,
      gracePeriod: 100,
    } as never);
  }

  override bindEvents(client: never): void {
    const nats = client as unknown as NatsConnection;
    const subscriptions = (this as unknown as { subscriptions: Subscription[] }).subscriptions;
    for (const [channel, handler] of this.messageHandlers) {
      const queue = handler.isEventHandler && isBroadcast(channel) ? undefined : this.transport.queue;
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
    const nc = await connect({ servers: [url], name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    return new NatsRpcClient(nc, prefix);
  }

  async request<S extends RequestSubject>(
    subject: S,
    data: RequestOf<S>,
    options: RequestOptions,
  ): Promise<ReplyOf<S>> {
    const packet = JSON.stringify({ pattern: subject, data, id: randomUUID(), traceparent: currentTraceparent() });
    let reply: ReplyPacket;
    try {
      const msg = await this.nc.request(wireSubject(this.prefix, subject), packet, { timeout: options.timeoutMs });
      reply = msg.json<ReplyPacket>();
    } catch (err) {
      throw transportError(subject, err, options.timeoutMs);
    }
    if (reply.err !== undefined && reply.err !== null) {
      if (isWireError(reply.err)) throw errorFromWire(reply.err);
      logger.error({ subject, err: reply.err }, 'a service answered with an untyped error');
      throw new InternalError();
    }
    return reply.response as ReplyOf<S>;
  }

  emit<S extends EventSubject>(subject: S, data: RequestOf<S>): void {
    this.nc.publish(wireSubject(this.prefix, subject), JSON.stringify({ pattern: subject, data }));
  }

  subscribe<S extends EventSubject>(subject: S, listener: (data: ParsedRequestOf<S>) => void): () => void {
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
  const timedOut = e.name === 'TimeoutError' || (e.cause as Error | undefined)?.name === 'TimeoutError';
  if (timedOut) return new TransportTimeoutError(`${subject} did not answer within ${timeoutMs} ms`);
  return new ServiceUnavailableError(`${subject} failed in transport: ${e.message}`);
}
