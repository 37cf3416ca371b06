import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { READINESS_CHECK_MS, type IntegrityReport } from '@world/contracts';
import { serviceLogger } from './logger.js';
import { metricsExposition } from './metrics.js';

/** One readiness check: resolves when the connection answers a round trip. */
type ReadinessCheck = () => Promise<void>;

/** The checks that apply to a service: its PostgreSQL handle and/or its NATS connection. */
export interface ReadinessChecks {
  database?: ReadinessCheck;
  nats?: ReadinessCheck;
  /**
   * The start-up integrity scans of the services this process runs, by service (world-spec
   * §2.18): shown in the report, never a reason to be unready (history is reported, not rewritten).
   */
  integrity?: () => Record<string, IntegrityReport>;
}

/** The body of `GET /readyz`. */
export interface ReadinessReport {
  /** `ready` when every check answered; `unready` when one failed; `draining` during shutdown */
  status: 'ready' | 'unready' | 'draining';
  /** each applicable check: `ok`, or `failed` (the cause goes to the log, never to the probe) */
  checks: { database?: 'ok' | 'failed'; nats?: 'ok' | 'failed' };
  /** what each service's start-up integrity scan found (present when the process owns hashed data) */
  integrity?: Record<string, IntegrityReport>;
}

const log = serviceLogger('health');

/**
 * Runs a service's readiness checks concurrently, each bounded by READINESS_CHECK_MS
 * (README "Health, readiness, metrics": ready when its PostgreSQL and NATS connections work).
 * @param checks the checks that apply (none → ready)
 * @param draining true once shutdown began: the report says `draining` whatever the checks say
 * @returns HTTP 200 with status `ready`, else 503 naming the failing check(s)
 */
export async function readiness(
  checks: ReadinessChecks,
  draining = false,
  timeoutMs: number = READINESS_CHECK_MS,
): Promise<{ httpStatus: 200 | 503; report: ReadinessReport }> {
  const names = (['database', 'nats'] as const).filter((n) => checks[n] !== undefined);
  const results = await Promise.all(names.map((name) => runCheck(name, checks[name]!, timeoutMs)));
  const report: ReadinessReport = { status: 'ready', checks: {} };
  names.forEach((name, i) => (report.checks[name] = results[i]!));
  if (checks.integrity !== undefined) report.integrity = checks.integrity();
  if (results.includes('failed')) report.status = 'unready';
  if (draining) report.status = 'draining';
  return { httpStatus: report.status === 'ready' ? 200 : 503, report };
}

async function runCheck(
  name: string,
  check: ReadinessCheck,
  timeoutMs: number,
): Promise<'ok' | 'failed'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (err) {
    log.warn({ check: name, err }, 'readiness check failed');
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/** The three operations routes every World process serves. */
export const OPS_ROUTES = { live: '/livez', ready: '/readyz', metrics: '/metrics' } as const;

/**
 * Answers the operations routes on a plain Node request: `GET /livez` → 200 `ok`;
 * `GET /readyz` → the readiness report (200 or 503); `GET /metrics` → the process's Prometheus
 * text. Anything else → 404 (a health port serves nothing more).
 */
export async function answerOps(
  req: IncomingMessage,
  res: ServerResponse,
  checks: ReadinessChecks,
  draining: boolean,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'method not allowed\n');
  switch (path) {
    case OPS_ROUTES.live:
      return text(res, 200, 'ok');
    case OPS_ROUTES.ready: {
      const { httpStatus, report } = await readiness(checks, draining);
      res.writeHead(httpStatus, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(report));
      return;
    }
    case OPS_ROUTES.metrics: {
      const { contentType, body } = await metricsExposition();
      res.writeHead(200, { 'Content-Type': contentType });
      res.end(body);
      return;
    }
    default:
      return text(res, 404, 'not found\n');
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(body);
}

/** Where and what a health server serves. */
export interface HealthServerOptions {
  /** TCP port; 0 picks a free one */
  port: number;
  /** interface to bind (default `0.0.0.0`: probes and scrapers come from outside a container) */
  host?: string;
  checks: ReadinessChecks;
}

/** A running health server. */
export interface HealthServer {
  /** the port it listens on (the chosen one when asked for 0) */
  port: number;
  /** From now on /readyz answers 503 `draining` (shutdown began; load balancers stop routing). */
  drain(): void;
  /** Stops listening and closes its connections. */
  close(): Promise<void>;
}

/**
 * Serves /livez, /readyz and /metrics for one process on its own port (WORLD_HEALTH_PORT), so
 * services without an HTTP edge can be probed and scraped.
 * @throws the listen error (port in use, bad host)
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  let draining = false;
  const server: Server = createServer((req, res) => {
    answerOps(req, res, options.checks, draining).catch((err: unknown) => {
      log.error({ err }, 'health route failed');
      if (!res.headersSent) text(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    drain() {
      draining = true;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
