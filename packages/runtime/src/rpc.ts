import { adoptInvocationId } from './trace.js';
import type {
  EventSubject,
  ReceiptOf,
  ReplyOf,
  RequestOf,
  RequestSubject,
  ParsedRequestOf,
  SurveySubject,
} from '@world/contracts';

/** Options of one request: every send names its timeout (DESIGN.md §1). */
export interface RequestOptions<Receipt = never> {
  timeoutMs: number;
  /**
   * Asks the replica that takes the request for its receipt (subjects whose contract declares
   * one; receipt.ts) and decides, when it comes while the request still waits, whether that
   * replica may act on it: called at most once, synchronously, with the parsed receipt. A
   * receipt that comes after the request settled is refused by the transport itself.
   */
  onReceipt?: (receipt: Receipt) => boolean;
}

/** Options of one survey: how long it collects replies after its request. */
export interface SurveyOptions {
  windowMs: number;
}

/**
 * A client of the other services' subjects, whatever the transport (NATS or in-process).
 * Replies and errors are the same on both: a service's WorldError arrives as the same class.
 */
export interface RpcClient {
  /**
   * Sends a request and awaits its reply.
   * @throws the WorldError the service threw; ServiceUnavailableError when nothing answers the
   * subject; TransportTimeoutError when the timeout ends first (the request may have run)
   */
  request<S extends RequestSubject>(
    subject: S,
    data: RequestOf<S>,
    options: RequestOptions<ReceiptOf<S>>,
  ): Promise<ReplyOf<S>>;
  /**
   * Sends one request on a survey subject (`survey: true` in CONTRACTS) and collects every
   * replica's reply until the window closes. Replies that do not match the subject's reply schema,
   * and replies after the window, are dropped (logged); no reply at all is an empty array.
   * @throws nothing: a transport failure is an empty survey (logged)
   */
  survey<S extends SurveySubject>(
    subject: S,
    data: RequestOf<S>,
    options: SurveyOptions,
  ): Promise<Array<ReplyOf<S>>>;
  /**
   * Answers a survey subject on this client's connection, outside any queue group, so every
   * replica that answers is heard. A reply that throws is not sent (logged): the replica is quiet.
   * Returns the unsubscribe.
   */
  answer<S extends SurveySubject>(subject: S, reply: () => Promise<ReplyOf<S>>): () => void;
  /** Publishes an event (at most once). */
  emit<S extends EventSubject>(subject: S, data: RequestOf<S>): void;
  /** Listens to an event on this client (every listener gets every event). Returns the unsubscribe. */
  subscribe<S extends EventSubject>(
    subject: S,
    listener: (data: ParsedRequestOf<S>) => void,
  ): () => void;
  /** Round-trip check of the transport connection (readiness). */
  ping(): Promise<void>;
  /**
   * Why the bus cannot carry World's largest commit right now (a NATS server reconnected to
   * with a max_payload below COMMIT_MESSAGE_MAX_BYTES: bus-fit.ts), or null when it can. A
   * transport without such a limit (the in-process bus) does not implement it.
   */
  commitFitProblem?(): string | null;
  close(): Promise<void>;
}

/** The packet a reply carries (Nest's microservice wire format). */
export interface ReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/**
 * A reply naming the invocation it answers (`planner.invoke`) hands its id to the caller's call
 * context when that has none yet, so the caller's later log lines carry it (adoptInvocationId).
 */
export function adoptReplyInvocationId(response: unknown): void {
  if (typeof response !== 'object' || response === null) return;
  const id = (response as { invocationId?: unknown }).invocationId;
  if (typeof id === 'string') adoptInvocationId(id);
}

/** A short, secret-free description of a thrown or wire error for a span's status: its class. */
export function errorClassOf(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const errorClass = (err as { errorClass?: unknown }).errorClass;
    if (typeof errorClass === 'string') return errorClass;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'Error';
}
