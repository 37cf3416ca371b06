import 'reflect-metadata';
import { shutdownTelemetry } from './telemetry.js';
import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { InProcessBus, InProcessRpcClient, InProcessServer } from './inprocess-transport.js';
import { NatsRpcClient } from './nats-client.js';
import { PrefixedNatsServer } from './nats-server.js';
import { PinoNestLogger, serviceLogger } from './logger.js';
import { WorldRpcExceptionFilter } from './rpc-exception.filter.js';
import type { RpcClient } from './rpc.js';
import { startHealthServer, type HealthServer, type ReadinessChecks } from './health.js';

/** How a service reaches the others: NATS (distributed) or one in-process bus (embedded). */
export type TransportConfig =
  { kind: 'nats'; url: string; prefix: string } | { kind: 'inproc'; bus: InProcessBus };

/** Optional settings of startMicroservice. */
export interface MicroserviceOptions {
  /** the replica's name: an attribute of every span it serves */
  replica?: string;
  /** how long close() waits for in-flight requests once it stopped taking work (default SHUTDOWN_DRAIN_MS) */
  drainMs?: number;
  /**
   * The process's RpcClient: over NATS, the service serves on its connection instead of opening a
   * second one, so a reply and a request sent in the same turn go out in one socket write. The
   * client keeps owning the connection: close it after the service.
   */
  rpc?: RpcClient;
}

/**
 * Boots a service's Nest module as a microservice on the given transport; replicas of one service
 * share the queue group named after it. Every message is served in its caller's call context
 * under a span named after the subject; close() stops taking work, lets in-flight requests
 * finish (bounded by drainMs), then disconnects.
 */
export async function startMicroservice(
  service: string,
  module: DynamicModule,
  transport: TransportConfig,
  options: MicroserviceOptions = {},
): Promise<INestMicroservice> {
  const strategy =
    transport.kind === 'nats'
      ? new PrefixedNatsServer({
          url: transport.url,
          prefix: transport.prefix,
          queue: service,
          replica: options.replica,
          drainMs: options.drainMs,
          connection: options.rpc instanceof NatsRpcClient ? options.rpc.connection : undefined,
        })
      : new InProcessServer(transport.bus, {
          service,
          replica: options.replica,
          drainMs: options.drainMs,
        });
  const app = await NestFactory.createMicroservice(module, {
    strategy,
    logger: new PinoNestLogger(serviceLogger(service)),
    // A wiring error throws to the caller (runMain exits 1 with its stack) instead of aborting.
    abortOnError: false,
  });
  app.useGlobalFilters(new WorldRpcExceptionFilter());
  await app.listen();
  return app;
}

/** Connects an RpcClient on the given transport. */
export async function connectRpc(transport: TransportConfig, name: string): Promise<RpcClient> {
  return transport.kind === 'nats'
    ? NatsRpcClient.connect(transport.url, transport.prefix, name)
    : new InProcessRpcClient(transport.bus);
}

/** A started service (one replica): what `world up`, embedded mode and tests hold on to. */
export interface RunningService {
  service: string;
  replica: string;
  /** Stops taking work, finishes what is in flight, releases connections. */
  close(): Promise<void>;
  /**
   * The readiness checks of this replica's connections (its PostgreSQL handle, its NATS
   * connection); absent or empty when none applies (embedded mode).
   */
  checks?: ReadinessChecks;
}

/** The health settings of a process's environment (CommonEnv). */
export interface HealthEnv {
  WORLD_HEALTH_PORT?: number;
  WORLD_HEALTH_HOST?: string;
}

/**
 * Starts the process's health server (/livez, /readyz, /metrics) when WORLD_HEALTH_PORT is set.
 * @returns the server, or undefined when no port is configured
 * @throws the listen error (port in use, bad host): the process exits 1
 */
export async function startHealthFromEnv(
  env: HealthEnv,
  checks: ReadinessChecks = {},
): Promise<HealthServer | undefined> {
  if (env.WORLD_HEALTH_PORT === undefined) return undefined;
  return startHealthServer({ port: env.WORLD_HEALTH_PORT, host: env.WORLD_HEALTH_HOST, checks });
}

/** Grace past the drain before a stuck shutdown gives up and exits 1. */
const SHUTDOWN_GRACE_MS = 1_000;

/**
 * Keeps a process running until SIGTERM or SIGINT, then closes its services (each stops taking
 * work and drains within `drainMs`) and exits 0; a second signal, or a close that outlives the
 * drain, exits 1 (world-spec §7.2). A health server reports `draining` from the signal on and
 * closes last.
 */
export function closeOnSignal(
  services: RunningService[],
  drainMs: number,
  onClosed?: () => void | Promise<void>,
  health?: HealthServer,
): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    health?.drain();
    serviceLogger('process').info({ signal, drainMs }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), drainMs + SHUTDOWN_GRACE_MS);
    timer.unref();
    void Promise.allSettled(services.map((s) => s.close()))
      .then(async () => {
        await onClosed?.();
        await health?.close();
        // The spans of the last calls leave before the process does (a no-op when export is off).
        await shutdownTelemetry();
      })
      .finally(() => {
        serviceLogger('process').info({ signal }, 'stopped');
        process.exit(0);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
