/** Injection tokens of the gateway module: its settings and its operator log. */

/** What the gateway's routes and use cases are configured with (resolved by startGateway). */
export interface GatewaySettings {
  /** GET /v1/* without a credential (WORLD_PUBLIC_READS, DESIGN.md §7.5) */
  publicReads: boolean;
  /** shown by GET /v1/health as db_path */
  dbPath: string;
  /** the invocation deadline in ms (WORLD_CALL_DEADLINE_MS) */
  callDeadlineMs: number;
  /** the gateway's wall clock, epoch ms (default Date.now): the time tool listings are filtered at */
  clock?: () => number;
  /** how long one /v1/log/stream run lasts (default LOG_STREAM_RUN_MS; tests shorten it) */
  logStreamRunMs?: number;
  /** POST /agui's run length and heartbeat (defaults AGUI_RUN_MS, AGUI_HEARTBEAT_MS; tests shorten them) */
  agui?: { runMs?: number; heartbeatMs?: number };
}

/** Injection token of the GatewaySettings. */
export const GATEWAY_SETTINGS = Symbol('world.gateway.settings');
/** Injection token of the gateway's operator log (a LogSink). */
export const GATEWAY_LOG = Symbol('world.gateway.log');
