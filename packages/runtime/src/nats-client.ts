import { randomUUID } from 'node:crypto';
import { connect, createInbox, type Msg, type NatsConnection } from '@nats-io/transport-node';
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
  type ReceiptOf,
  type ReplyOf,
  type RequestOf,
  type RequestSubject,
  type SurveySubject,
} from '@world/contracts';
import {
  assertMaxPayload,
  maxPayloadProblem,
  maxPayloadShortfall,
  watchMaxPayload,
} from './bus-fit.js';
import type { ReplyPacket, RequestOptions, RpcClient, SurveyOptions } from './rpc.js';
import { logger } from './logger.js';
import { coalesceWrites } from './nats-write-coalescing.js';
import { acceptReceipt } from './receipt.js';
import { adoptReplyInvocationId } from './rpc.js';
import { currentCallMeta } from './trace.js';

/**
 * The bytes a request packet puts on the wire: Nest's `{pattern, data, id}` with World's call
 * meta (trace parent, invocation id), as JSON, and `receipt: true` when the caller asks its taker
 * for a receipt (receipt.ts). NatsRpcClient sends exactly this; the commit size bound
 * (COMMIT_MESSAGE_MAX_BYTES) is measured with it.
 * @internal exported for nats-client.spec.ts
 */
export function requestPacket(subject: RequestSubject, data: unknown, receipt = false): string {
  return JSON.stringify({
    pattern: subject,
    data,
    id: randomUUID(),
    ...currentCallMeta(),
    ...(receipt && { receipt: true }),
  });
}

/**
 * What every connection World opens goes through before it is used, client's and server's alike:
 * the server must carry the largest commit (assertMaxPayload), and the connection then writes
 * once per event-loop turn (coalesceWrites). A connection that fails either is closed.
 * @throws ConfigError (max_payload too small); LibraryShapeError (nats.js internals changed)
 */
export async function prepareConnection(nc: NatsConnection, url: string): Promise<void> {
  await assertMaxPayload(nc, url);
  try {
    coalesceWrites(nc);
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}

/** A request sent through NatsRpcClient's inbox and not answered yet. */
interface PendingReply {
  subject: string;
  /** the caller's decision on its taker's receipt (RequestOptions.onReceipt) */
  onReceipt?: (receipt: never) => boolean;
  resolve(msg: Msg): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** A survey sent through NatsRpcClient's inbox whose window is still open. */
interface OpenSurvey {
  subject: SurveySubject;
  replies: unknown[];
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
  private readonly surveys = new Map<string, OpenSurvey>();
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
   *   COMMIT_MESSAGE_MAX_BYTES (assertMaxPayload); LibraryShapeError when nats.js changed what
   *   coalesceWrites relies on
   */
  static async connect(url: string, prefix: string, name: string): Promise<NatsRpcClient> {
    const nc = await connect({
      servers: [url],
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    await prepareConnection(nc, url);
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
    options: RequestOptions<ReceiptOf<S>>,
  ): Promise<ReplyOf<S>> {
    const packet = requestPacket(subject, data, options.onReceipt !== undefined);
    const msg = await this.send(subject, packet, options.timeoutMs, options.onReceipt);
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
  private send(
    subject: RequestSubject,
    packet: string,
    timeoutMs: number,
    onReceipt?: (receipt: never) => boolean,
  ): Promise<Msg> {
    const wire = wireSubject(this.prefix, subject);
    if (!(timeoutMs >= 1) || this.nc.isClosed() || this.nc.isDraining()) {
      // Left to nats.js's request(), whose own checks answer these (a bad timeout, a closed or
      // draining connection) with the errors callers already map (transportError).
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
      this.pending.set(token, { subject, onReceipt, resolve, reject, timer });
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
    // Replies carry no reply subject; a taker's receipt asks back whether to go on.
    if (msg.reply !== undefined && msg.reply !== '') return this.answerReceipt(token, msg);
    const survey = this.surveys.get(token);
    if (survey !== undefined) return collectSurveyReply(survey, msg);
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

  /**
   * Answers a taker's receipt (`{id, receipt}` asking on the request's reply subject) with
   * `{proceed}`: true only while the request still waits and its caller accepts the receipt
   * (acceptReceipt); a receipt for a request that settled (answered, timed out) is refused.
   */
  private answerReceipt(token: string, msg: Msg): void {
    const pending = this.pending.get(token);
    let proceed = false;
    if (pending !== undefined) {
      try {
        const { receipt } = msg.json<{ receipt?: unknown }>();
        proceed = acceptReceipt(pending.subject, receipt, pending.onReceipt);
      } catch (err) {
        logger.warn({ subject: pending.subject, err }, 'refused a malformed receipt');
      }
    }
    try {
      msg.respond(JSON.stringify({ proceed }));
    } catch (err) {
      logger.warn({ err }, 'could not answer a receipt');
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

  async survey<S extends SurveySubject>(
    subject: S,
    data: RequestOf<S>,
    options: SurveyOptions,
  ): Promise<Array<ReplyOf<S>>> {
    // `_` is no base-36 digit, so a survey's token never equals a request's (base 36 alone).
    const token = `_${(this.nextToken++).toString(36)}`;
    const open: OpenSurvey = { subject, replies: [] };
    this.surveys.set(token, open);
    try {
      this.nc.publish(wireSubject(this.prefix, subject), requestPacket(subject, data), {
        reply: this.inbox + token,
      });
      await new Promise((resolve) => setTimeout(resolve, options.windowMs));
    } catch (err) {
      logger.warn({ subject, err }, 'survey failed in transport');
    } finally {
      this.surveys.delete(token);
    }
    return open.replies as Array<ReplyOf<S>>;
  }

  answer<S extends SurveySubject>(subject: S, reply: () => Promise<ReplyOf<S>>): () => void {
    // No queue group: every replica subscribed here answers the one request.
    const sub = this.nc.subscribe(wireSubject(this.prefix, subject), {
      callback: (err, msg) => {
        if (err !== null || msg.reply === undefined || msg.reply === '') return;
        let id: unknown;
        try {
          id = msg.json<{ id?: unknown }>().id;
        } catch (e) {
          return void logger.warn({ subject, err: e }, 'dropped a malformed survey request');
        }
        reply()
          .then((response) => msg.respond(JSON.stringify({ id, response, isDisposed: true })))
          // A reply that cannot be built or sent (e.g. over max_payload) is logged, never an
          // unhandled rejection.
          .catch((e: unknown) =>
            logger.warn({ subject, err: e }, 'survey reply failed; not answered'),
          );
      },
    });
    return () => sub.unsubscribe();
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

/**
 * Adds one reply to an open survey when it is a reply packet whose response matches the
 * subject's reply schema; NATS's no-responders status (an empty 503) and anything else are dropped.
 */
function collectSurveyReply(survey: OpenSurvey, msg: Msg): void {
  if (msg.data.length === 0) return;
  try {
    const packet = msg.json<ReplyPacket>();
    const parsed = CONTRACTS[survey.subject].reply.safeParse(packet.response);
    if (parsed.success) survey.replies.push(parsed.data);
    else logger.warn({ subject: survey.subject }, 'dropped a survey reply off its schema');
  } catch (err) {
    logger.warn({ subject: survey.subject, err }, 'dropped a malformed survey reply');
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
