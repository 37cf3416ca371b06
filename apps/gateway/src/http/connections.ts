import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_IDLE_TIMEOUT_MS, HTTP_MAX_CONNECTIONS } from '@world/contracts';
import { worldMetrics } from '@world/runtime';

/** Requests a connection has in progress (absent: none yet). */
const active = new WeakMap<Socket, number>();

/**
 * How much longer than the `Keep-Alive: timeout=5` it advertises the gateway keeps an idle
 * kept-alive connection open. A client that honours the hint stops reusing the connection by
 * then (undici, Node's fetch, at the hint less 1 s), so a request it sends at the edge is never
 * met by a close already on its way (ECONNRESET on a call the client cannot safely resend) — also
 * when the gateway's event loop runs late, as it does beside CPU-bound AILANG runs on two cores.
 */
const KEEP_ALIVE_GRACE_MS = 3_000;

/**
 * Bounds what connections can hold in the gateway (world-internals §9 HTTP limits):
 * - one that sends nothing for HTTP_IDLE_TIMEOUT_MS is closed: a new one before its first
 *   request (Node's own timers start only with a request, so a socket that never sends a byte
 *   was held forever), a kept-alive one between requests after the advertised keepAliveTimeout
 *   plus KEEP_ALIVE_GRACE_MS; a request in progress is bounded by the read and write timeouts
 *   instead;
 * - at most HTTP_MAX_CONNECTIONS are open at once: Node closes one beyond that at accept.
 * Counts `world_http_connections` (open) and `world_http_connections_closed_total` by reason
 * (`refused` at the cap, `idle`).
 * @param server the gateway's HTTP server, before it listens
 * @param replica the replica label of the metrics
 */
export function limitConnections(server: Server, replica: string): void {
  const metrics = worldMetrics();
  const open = metrics.httpConnections.labels({ replica });
  open.set(0);
  server.maxConnections = HTTP_MAX_CONNECTIONS;
  server.keepAliveTimeout = HTTP_IDLE_TIMEOUT_MS;
  server.on('drop', () => metrics.httpConnectionsClosed.inc({ replica, reason: 'refused' }));
  server.on('connection', (socket: Socket) => {
    open.inc();
    socket.once('close', () => open.dec());
    socket.setTimeout(HTTP_IDLE_TIMEOUT_MS);
    // Node's own timeout listener destroys a socket with no request in progress; this one counts
    // it (and closes it itself, should that listener ever not).
    socket.on('timeout', () => {
      if ((active.get(socket) ?? 0) > 0) return;
      metrics.httpConnectionsClosed.inc({ replica, reason: 'idle' });
      socket.destroy();
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    active.set(socket, (active.get(socket) ?? 0) + 1);
    socket.setTimeout(0);
    res.once('close', () => {
      const left = (active.get(socket) ?? 1) - 1;
      active.set(socket, left);
      // Set after Node's own keep-alive timer (armed at 'finish'), so this one is what counts.
      if (left === 0 && !socket.destroyed)
        socket.setTimeout(HTTP_IDLE_TIMEOUT_MS + KEEP_ALIVE_GRACE_MS);
    });
  });
}
