import type { NextFunction, Request, Response } from 'express';
import {
  OPS_ROUTES,
  REPLICA_ATTRIBUTE,
  SERVICE_ATTRIBUTE,
  elapsedSeconds,
  serveHttp,
  startMark,
  worldMetrics,
  type serviceLogger,
} from '@world/runtime';

/** The slice of the gateway's pino logger the observation writes to. */
type RequestLog = Pick<ReturnType<typeof serviceLogger>, 'info' | 'debug'>;

/** The `route` label of a request no route matched: unknown paths never become labels. */
const UNMATCHED_ROUTE = '(unmatched)';
/** Responses from this status on fail their span. */
const SERVER_ERROR_STATUS = 500;
const MS_PER_SECOND = 1000;
const QUIET_ROUTES: ReadonlySet<string> = new Set(Object.values(OPS_ROUTES));

/**
 * The route template a request matched (`/v1/objects/:ref`), from Express's matched route, or
 * UNMATCHED_ROUTE: a low-cardinality label whatever paths clients send.
 */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : UNMATCHED_ROUTE;
}

/**
 * The gateway's HTTP observation, first of its middleware (packages/runtime/README.md):
 * - continues the caller's trace from its `traceparent` header (or starts one) with a server
 *   span, and runs the request in that call context, so every NATS request it makes carries it;
 * - when the response closes: renames the span `<METHOD> <route>`, counts
 *   `world_http_requests_total{route,status}`, and logs one `http request` line — carrying the
 *   call's invocation id once `planner.invoke` named it (probes and scrapes log at debug).
 * @param replica the gateway replica (metric label, span attribute)
 * @param log the gateway's logger
 */
export function observeHttp(replica: string, log: RequestLog) {
  const attributes = { [SERVICE_ATTRIBUTE]: 'gateway', [REPLICA_ATTRIBUTE]: replica };
  return (req: Request, res: Response, next: NextFunction): void => {
    const mark = startMark();
    const call = serveHttp(req.method, req.headers, attributes);
    res.once('close', () => {
      const route = routeOf(req);
      const status = res.statusCode;
      call.span.updateName(`${req.method} ${route}`);
      call.span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= SERVER_ERROR_STATUS) call.fail(String(status));
      if (!res.writableFinished) call.fail('client closed the connection before the answer');
      call.end();
      worldMetrics().httpRequests.inc({ replica, route, status: String(status) });
      const fields = {
        method: req.method,
        route,
        status,
        durationMs: Math.round(elapsedSeconds(mark) * MS_PER_SECOND),
      };
      call.run(() =>
        QUIET_ROUTES.has(route)
          ? log.debug(fields, 'http request')
          : log.info(fields, 'http request'),
      );
    });
    call.run(() => next());
  };
}
