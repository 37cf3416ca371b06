import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { InProcessBus, InProcessRpcClient, InProcessServer } from './inprocess-transport.js';
import { NatsRpcClient, PrefixedNatsServer } from './nats-transport.js';
import { PinoNestLogger, serviceLogger } from './logger.js';
import { WorldRpcExceptionFilter } from './rpc-exception.filter.js';
import type { RpcClient } from './rpc.js';

/** How a service reaches the others: NATS (distributed) or one in-process bus (embedded). */
export type TransportConfig =
  | { kind: 'nats'; url: string; prefix: string }
  | { kind: 'inproc'; bus: InProcessBus };

/**
 * Boots a service's Nest module as a microservice on the given transport; replicas of one service
 * share the queue group named after it.
 */
export async function startMicroservice(
  service: string,
  module: DynamicModule,
  transport: TransportConfig,
): Promise<INestMicroservice> {
  const strategy =
    transport.kind === 'nats'
      ? new PrefixedNatsServer({ url: transport.url, prefix: transport.prefix, queue: service })
      : new InProcessServer(transport.bus);
  const app = await NestFactory.createMicroservice(module, {
    strategy,
    logger: new PinoNestLogger(serviceLogger(service)),
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
}

/**
 * Keeps a process running until SIGTERM or SIGINT, then closes its services (bounded by
 * `drainMs`) and exits 0; a second signal exits at once.
 */
export function closeOnSignal(services: RunningService[], drainMs: number, onClosed?: () => void): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    serviceLogger('process').info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), drainMs + 1_000);
    timer.unref();
    void Promise.allSettled(services.map((s) => s.close())).then(() => {
      onClosed?.();
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
