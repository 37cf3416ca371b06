import type {
  EventSubject,
  ReplyOf,
  RequestOf,
  RequestSubject,
  ParsedRequestOf,
} from '@world/contracts';

/** Options of one request: every send names its timeout (DESIGN.md §1). */
export interface RequestOptions {
  timeoutMs: number;
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
  request<S extends RequestSubject>(subject: S, data: RequestOf<S>, options: RequestOptions): Promise<ReplyOf<S>>;
  /** Publishes an event (at most once). */
  emit<S extends EventSubject>(subject: S, data: RequestOf<S>): void;
  /** Listens to an event on this client (every listener gets every event). Returns the unsubscribe. */
  subscribe<S extends EventSubject>(subject: S, listener: (data: ParsedRequestOf<S>) => void): () => void;
  /** Round-trip check of the transport connection (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The packet a request carries (Nest's microservice wire format). */
export interface RequestPacket {
  pattern: string;
  data: unknown;
  id?: string;
  /** W3C trace context of the caller, when tracing is on */
  traceparent?: string;
}

/** The packet a reply carries (Nest's microservice wire format). */
export interface ReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}
