import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_IDLE_TIMEOUT_MS, HTTP_MAX_CONNECTIONS } from '@world/contracts';
import { worldMetrics } from '@world/runtime';

/** Requests a connection has in progress (absent: none yet). */
const active = new WeakMap<Socket, number>();

/**
 * Bounds what connections can hold in the gateway (world-internals §9 HTTP limits):
 * - one that sends nothing for HTTP_IDLE_TIMEOUT_MS is closed: a new one before its first
 *   request (Node's own timers start only with a request, so a socket that never sends a byte
 *   was held forever), a kept-alive one between requests (keepAliveTimeout); a request in
 *   progress is bounded by the read and write timeouts instead;
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
      if (left === 0 && !socket.destroyed) socket.setTimeout(HTTP_IDLE_TIMEOUT_MS);
    });
  });
}
