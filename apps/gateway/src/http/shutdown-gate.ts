import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ShuttingDownError } from '@world/contracts';
import { InFlight, OPS_ROUTES } from '@world/runtime';
import { restErrorOf } from '../errors/error-map.js';

/** The operations routes stay answered while draining: /readyz then says `draining`. */
const OPS_PATHS: ReadonlySet<string> = new Set(Object.values(OPS_ROUTES));
/**
 * A live log tail is no call to wait for: it ends when the server closes, and its client resumes
 * from its last index (world-internals §7.4).
 */
const STREAM_PATH = '/v1/log/stream';

/**
 * The gateway's shutdown order (world-spec §7.2 "drain in-flight requests ≤ 10 s"): once
 * `drain()` is called, no new call starts on this replica, then what is in flight finishes.
 * - readiness is false: /readyz answers 503 `draining` (load balancers stop routing here);
 * - every new request, also one on a kept-alive connection, is refused at once with 503
 *   `{"error":{"class":"ShuttingDown",…}}` and `Connection: close` (nothing is sent on to the
 *   planner), except the operations routes /livez, /readyz and /metrics;
 * - every request in flight answers with `Connection: close` (or its connection is ended after
 *   an answer already under way), so no kept-alive connection carries another request.
 * The gateway keeps listening while it drains, so a client that connects meanwhile gets the same
 * 503 instead of a reset; `idle(ms)` waits for the requests in flight (live log tails excepted),
 * bounded by the caller's grace, before the server closes.
 */
export class ShutdownGate {
  private draining = false;
  private readonly inflight = new InFlight();
  private readonly open = new Set<ServerResponse>();

  /** True from drain() on. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Requests accepted and not yet answered. */
  get inFlight(): number {
    return this.inflight.size;
  }

  /** The middleware, installed before every route. */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    if (this.draining && !OPS_PATHS.has(req.path)) return refuse(req, res);
    if (OPS_PATHS.has(req.path)) return next();
    const counted = req.path !== STREAM_PATH;
    if (counted) this.inflight.enter();
    this.open.add(res);
    res.once('close', () => {
      this.open.delete(res);
      if (counted) this.inflight.leave();
    });
    next();
  };

  /** Stops taking new requests and closes every connection once its answer in flight ends. */
  drain(): void {
    if (this.draining) return;
    this.draining = true;
    for (const res of this.open) closeAfter(res);
  }

  /** Resolves true once nothing is in flight, false when `timeoutMs` ends first. */
  idle(timeoutMs: number): Promise<boolean> {
    return this.inflight.idle(timeoutMs);
  }
}

/** Answers a request refused by a draining gateway, and closes its connection. */
function refuse(req: IncomingMessage, res: ServerResponse): void {
  const { status, body } = restErrorOf(new ShuttingDownError());
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    Connection: 'close',
  });
  res.end(text);
  // The request's body is not read: the connection ends with the answer.
  req.resume();
}

/** Makes a response the last on its connection. */
function closeAfter(res: ServerResponse): void {
  if (!res.headersSent) {
    res.setHeader('Connection', 'close');
    return;
  }
  res.once('finish', () => res.socket?.end());
}
