import type { RpcClient } from '@world/runtime';
import type { A2aEndpoint } from './a2a/a2a-endpoint.js';
import type { Authenticator } from './auth/authenticator.js';
import type { SessionResolver } from './auth/session-resolver.js';
import type { LogSink } from './log.js';
import type { McpEndpoint } from './mcp/mcp-endpoint.js';

/** Everything the gateway's controllers and guards share, built once by startGateway. */
export interface GatewayContext {
  rpc: RpcClient;
  auth: Authenticator;
  sessions: SessionResolver;
  mcp: McpEndpoint;
  /** the A2A routes: tasks/send, the SDK's JSON-RPC endpoint, both cards */
  a2a: A2aEndpoint;
  log: LogSink;
  /** GET /v1/* without a credential (WORLD_PUBLIC_READS, DESIGN.md §7.5) */
  publicReads: boolean;
  /** the key sealing workbench tickets and logins, shared by every replica (OperatorCredential) */
  workbenchKey: Buffer;
  /** shown by GET /v1/health */
  dbPath: string;
  /** how long one /v1/log/stream run lasts (default LOG_STREAM_RUN_MS; tests shorten it) */
  logStreamRunMs?: number;
  /** POST /agui's run length and heartbeat (defaults AGUI_RUN_MS, AGUI_HEARTBEAT_MS; tests shorten them) */
  agui?: { runMs?: number; heartbeatMs?: number };
}

/** Injection token of the GatewayContext. */
export const GATEWAY = Symbol('world.gateway');
