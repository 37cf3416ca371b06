import {
  NatsContext,
  ServerNats,
  type MessageHandler,
  type WritePacket,
} from '@nestjs/microservices';
import { isObservable } from 'rxjs';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import {
  CONTRACTS,
  INVOKE_RECEIPT_MS,
  SHUTDOWN_DRAIN_MS,
  wireSubject,
  type SubjectName,
} from '@world/contracts';
import { InFlight } from './inflight.js';
import { logger } from './logger.js';
import { prepareConnection } from './nats-client.js';
import { onceReceiptChannel } from './receipt.js';
import { errorClassOf } from './rpc.js';
import {
  REPLICA_ATTRIBUTE,
  SERVICE_ATTRIBUTE,
  serveMessage,
  type CallMeta,
  type ReceiptChannel,
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

/**
 * A packet as the server reads it: Nest's fields plus World's call meta, and `receipt` when its
 * caller asks for a receipt (receipt.ts).
 */
type IncomingPacket = CallMeta & { pattern: string; data: unknown; id?: string; receipt?: unknown };

/**
 * The receipt channel of a request taken from NATS: a request of its own to the caller's reply
 * subject, `{id, receipt}`, answered `{proceed}` by the caller's client (NatsRpcClient). No
 * answer within INVOKE_RECEIPT_MS, or no responders (the caller is gone), is no.
 */
function natsReceiptChannel(nc: NatsConnection, replyTo: string, id: string): ReceiptChannel {
  return onceReceiptChannel(async (receipt) => {
    const answer = await nc.request(replyTo, JSON.stringify({ id, receipt }), {
      timeout: INVOKE_RECEIPT_MS,
    });
    return answer.json<{ proceed?: unknown }>().proceed === true;
  });
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
 * id) under a span named after the subject; close() drains gracefully, so a replica that stops
 * answers what it already took (packages/runtime/README.md "Shutdown").
 *
 * It uses ServerNats through its public and protected members only (the compiler checks them
 * against the installed @nestjs/microservices): the connection and the subscriptions it opens
 * are kept here rather than read from ServerNats's private `natsClient` and `subscriptions`.
 */
export class PrefixedNatsServer extends ServerNats {
  private readonly inflight = new InFlight();
  private readonly attributes: Record<string, string>;
  /** Nest's default start hook (it only runs the handler): no hooks set means the direct reply */
  private readonly defaultStartHook: ServerNats['onProcessingStartHook'];
  /** the connection served on, from createNatsClient until close() */
  private served: NatsConnection | null = null;
  /** the subscriptions bindEvents opened, drained by close() */
  private readonly channels: Subscription[] = [];

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
   * (owned) that writes once per event-loop turn (prepareConnection).
   * @throws when the server cannot be reached; ConfigError when its max_payload is too small;
   *   LibraryShapeError when nats.js changed what coalesceWrites relies on
   */
  override async createNatsClient(): Promise<NatsConnection> {
    if (this.transport.connection !== undefined) {
      this.served = this.transport.connection;
      return this.served;
    }
    const nc = (await super.createNatsClient()) as unknown as NatsConnection;
    await prepareConnection(nc, this.transport.url);
    this.served = nc;
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
    const receipt =
      message.receipt === true &&
      message.id !== undefined &&
      natsMsg.reply !== undefined &&
      natsMsg.reply !== '' &&
      this.served !== null
        ? natsReceiptChannel(this.served, natsMsg.reply, message.id)
        : undefined;
    const served = serveMessage(channel, message, this.attributes, receipt);
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
   * closes). A second close() returns at once.
   */
  override async close(): Promise<void> {
    const nc = this.served;
    if (nc === null) return;
    this.served = null;
    await Promise.allSettled(this.channels.splice(0).map((sub) => sub.drain()));
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
    this.statusEventEmitter.removeAllListeners();
  }

  /**
   * Subscribes every handler's subject under the prefix: in the service's queue group, except
   * broadcast events, which every replica receives (DESIGN.md §1).
   */
  override bindEvents(client: never): void {
    const nats = client as unknown as NatsConnection;
    for (const [channel, handler] of this.messageHandlers) {
      const queue =
        handler.isEventHandler && isBroadcast(channel) ? undefined : this.transport.queue;
      this.channels.push(
        nats.subscribe(wireSubject(this.transport.prefix, channel as SubjectName), {
          queue,
          callback: (this.getMessageHandler(channel) as (...a: unknown[]) => void).bind(this),
        }),
      );
    }
  }
}
