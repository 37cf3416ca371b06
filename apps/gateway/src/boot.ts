import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import {
  CALL_DEADLINE_MS,
  HTTP_READ_HEADER_TIMEOUT_MS,
  HTTP_READ_TIMEOUT_MS,
  SHUTDOWN_DRAIN_MS,
  formatHostPort,
  type HostPort,
} from '@world/contracts';
import {
  PinoNestLogger,
  answerReplicaSurvey,
  connectRpc,
  serviceLogger,
  type ReadinessChecks,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import { Authenticator } from './auth/authenticator.js';
import { loadOperatorCredential } from './auth/operator-credential.js';
import { SessionResolver } from './auth/session-resolver.js';
import { assertBindAllowed, isLoopbackHost, parseBind } from './config.js';
import { GatewayModule } from './gateway.module.js';
import { limitConnections } from './http/connections.js';
import { hostOriginGuard, loopbackHostnames } from './http/host-origin.js';
import { RestExceptionFilter } from './http/rest-exception.filter.js';
import { ShutdownGate } from './http/shutdown-gate.js';
import { ReplicaSurvey } from './workbench/replica-survey.js';
import { SERVICE_NAME } from './identity.js';
import type { LogSink } from './log.js';
import { McpEndpoint } from './mcp/mcp-endpoint.js';
import { assertSdkServesParsedBody } from './mcp/sdk-fetch-adapter.js';
import { observeHttp } from './ops/http-observe.js';
import { secureWorkbench } from './workbench/security.js';

const REPLICA_ID_BYTES = 4;

/** What startGateway needs. */
export interface GatewayOptions {
  /** how to reach the planner, broker and ledger */
  transport: TransportConfig;
  /** `host:port` or parsed; port 0 picks a free port */
  bind: string | HostPort;
  /** serve beyond loopback (WORLD_BIND_PUBLIC=1; containers) */
  bindPublic?: boolean;
  /** WORLD_HOME: where operator.token lives unless given otherwise */
  worldHome: string;
  /** GET /v1/* without a credential (DESIGN.md §7.5) */
  publicReads?: boolean;
  /** how long one /v1/log/stream run lasts before the client resumes (default LOG_STREAM_RUN_MS) */
  logStreamRunMs?: number;
  /** POST /agui's run length and heartbeat (defaults AGUI_RUN_MS, AGUI_HEARTBEAT_MS) */
  agui?: { runMs?: number; heartbeatMs?: number };
  /** the operator credential itself (64 hex), else… */
  operatorToken?: string;
  /** …a file holding it, else `$WORLD_HOME/operator.token` (created when absent) */
  operatorTokenFile?: string;
  /** the invocation deadline in ms (default CALL_DEADLINE_MS) */
  callDeadlineMs?: number;
  /**
   * The gateway's wall clock, epoch ms (default Date.now): when a resolved session counts as
   * expired, and the time tool listings are filtered at. Tests move it instead of sleeping.
   */
  clock?: () => number;
  /** shown by GET /v1/health as db_path */
  dbPath?: string;
  replica?: string;
  /** operator log lines (default: the gateway's pino logger) */
  log?: LogSink;
  /**
   * The integrity scans of the services running beside it in one process (embedded mode), shown
   * in its `/readyz` (world-spec §2.18); each process of a distributed World shows its own.
   */
  integrity?: ReadinessChecks['integrity'];
  /**
   * The database of the services running beside it in one process (`world start`): its /readyz
   * says `database: failed` while that database does not answer (e.g. its server died).
   */
  database?: ReadinessChecks['database'];
}

/** A started gateway: a RunningService with the URL it answers on. */
export interface RunningGateway extends RunningService {
  /** `http://host:port`, no trailing slash */
  url: string;
  /** the operator credential's file, when it came from one */
  operatorTokenFile?: string;
}

/**
 * Starts the HTTP edge: resolves the operator credential, connects to the other services, and
 * serves `/mcp`, `/v1/*` and the operator routes on `bind` (DESIGN.md §1), plus `/livez`,
 * `/readyz` and `/metrics`; every request is traced, counted and logged (observeHttp). The
 * gateway owns nothing durable; `close()` first refuses new requests (ShutdownGate), then stops
 * accepting connections, lets the requests in flight answer (SHUTDOWN_DRAIN_MS), then releases
 * its transport connection. Idle and surplus connections are bounded (limitConnections).
 * @throws ConfigError for a bind beyond loopback without `bindPublic`, or a bad operator token;
 *   LibraryShapeError when the installed MCP SDK no longer serves what the hand-off relies on
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const bind = typeof options.bind === 'string' ? parseBind(options.bind) : options.bind;
  assertBindAllowed(bind, options.bindPublic ?? false);
  await assertSdkServesParsedBody();
  const replica =
    options.replica ?? `${SERVICE_NAME}-${randomBytes(REPLICA_ID_BYTES).toString('hex')}`;
  const pino = serviceLogger(SERVICE_NAME).child({ replica });
  const log = options.log ?? pino;

  const { credential, file } = await loadOperatorCredential({
    token: options.operatorToken,
    file: options.operatorTokenFile,
    worldHome: options.worldHome,
  });
  const rpc = await connectRpc(options.transport, replica);
  const checks: ReadinessChecks = {
    ...(options.transport.kind === 'nats' && { nats: () => rpc.ping() }),
    ...(options.database !== undefined && { database: options.database }),
    ...(options.integrity !== undefined && { integrity: options.integrity }),
  };
  const callDeadlineMs = options.callDeadlineMs ?? CALL_DEADLINE_MS;
  const sessions = new SessionResolver(rpc, options.clock);
  const auth = new Authenticator(sessions, credential);
  const mcp = new McpEndpoint(auth, { rpc, log, callDeadlineMs, clock: options.clock });

  const gate = new ShutdownGate();
  const startedAtMs = Date.now();
  const survey = new ReplicaSurvey(rpc);
  let app: NestExpressApplication | undefined;
  try {
    app = await NestFactory.create<NestExpressApplication>(
      GatewayModule.register({
        rpc,
        log,
        settings: {
          publicReads: options.publicReads ?? false,
          dbPath: options.dbPath ?? '',
          callDeadlineMs,
          ...(options.clock !== undefined && { clock: options.clock }),
          logStreamRunMs: options.logStreamRunMs,
          agui: options.agui,
        },
        sessions,
        auth,
        mcp,
        workbenchKey: credential.workbenchKey,
        ops: { checks, isDraining: () => gate.isDraining },
        survey,
      }),
      new ExpressAdapter(),
      // Bodies are read per route with the route's own limit (ecosystem.md §0.8, §8).
      { bodyParser: false, logger: new PinoNestLogger(pino) },
    );
    app.disable('x-powered-by');
    // First: every request, even one a guard refuses, is traced, counted and logged.
    app.use(observeHttp(replica, pino));
    // Then: a draining gateway takes no new request (ShutdownGate), counted and logged above.
    app.use(gate.middleware);
    if (isLoopbackHost(bind.host)) app.use(hostOriginGuard(loopbackHostnames(bind.host)));
    app.use(secureWorkbench);
    app.useGlobalFilters(new RestExceptionFilter(log));
    // A slow client cannot hold a connection open by trickling headers or a body.
    const server = app.getHttpServer() as Server;
    server.headersTimeout = HTTP_READ_HEADER_TIMEOUT_MS;
    server.requestTimeout = HTTP_READ_TIMEOUT_MS;
    // Nor can idle sockets pile up: closed after HTTP_IDLE_TIMEOUT_MS, at most HTTP_MAX_CONNECTIONS.
    limitConnections(server, replica);
    await app.listen(bind.port, bind.host);
  } catch (err) {
    await app?.close().catch(() => undefined);
    sessions.close();
    await rpc.close();
    throw err;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  const running = app;
  // This replica answers the replica survey (its integrity is its own: none; the services beside
  // it in one process answer for theirs), then surveys every service in the background.
  const { integrity: _theirs, ...ownChecks } = checks;
  const stopAnswering = answerReplicaSurvey(rpc, {
    service: SERVICE_NAME,
    replica,
    checks: ownChecks,
    startedAtMs,
    isDraining: () => gate.isDraining,
  });
  survey.start();
  return {
    service: SERVICE_NAME,
    replica,
    url: `http://${formatHostPort({ host: bind.host, port })}`,
    operatorTokenFile: file,
    checks,
    async close() {
      // First take no new call, also on kept-alive connections (readiness false, new requests
      // 503 ShuttingDown, every connection closed after its answer in flight), and let the calls
      // in flight answer (world-spec §7.2); then close the server: whatever still holds a
      // connection when the drain time is over (a live log tail) is cut.
      const cutAt = Date.now() + SHUTDOWN_DRAIN_MS;
      gate.drain();
      if (!(await gate.idle(SHUTDOWN_DRAIN_MS)))
        pino.warn({ inFlight: gate.inFlight }, 'shutdown drain ended with requests in flight');
      const server = running.getHttpServer() as Server;
      const cut = setTimeout(() => server.closeAllConnections(), Math.max(0, cutAt - Date.now()));
      try {
        await running.close();
      } finally {
        clearTimeout(cut);
      }
      await mcp.close();
      sessions.close();
      stopAnswering();
      await survey.stop();
      await rpc.close();
    },
  };
}
