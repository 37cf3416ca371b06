import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CliError } from '../commands/util.js';

/** The services `world up` starts, in start order (the ledger first: it owns genesis). */
export const SERVICES = ['ledger', 'broker', 'planner', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** How many processes of each service. */
export type Replicas = Record<ServiceName, number>;

/**
 * Parses `--replicas gateway=2,planner=2,broker=3,ledger=2` (unnamed services get 1).
 * @throws CliError (exit 2) naming the bad item
 */
export function parseReplicas(text: string | undefined): Replicas {
  const replicas: Replicas = { ledger: 1, broker: 1, planner: 1, gateway: 1 };
  if (text === undefined || text === '') return replicas;
  for (const item of text.split(',')) {
    const m = /^(ledger|broker|planner|gateway)=([1-9][0-9]?)$/.exec(item.trim());
    if (m === null) throw new CliError(`--replicas: "${item}" must be <service>=<1..99> with service ledger, broker, planner or gateway`, 2);
    replicas[m[1] as ServiceName] = Number(m[2]);
  }
  return replicas;
}

/** The built entry point of a service (apps/<service>/dist/main.js, resolved through its package). */
export function serviceEntry(service: ServiceName): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`@world/${service}/package.json`);
  return join(dirname(pkg), 'dist', 'main.js');
}

/** One started service process. */
export interface ServiceProcess {
  service: ServiceName;
  replica: string;
  child: ChildProcess;
  /** the gateway's port, for gateways */
  port?: number;
  ready: Promise<void>;
}

/**
 * Starts `replicas` processes of each service with the given environment. Gateway replica i
 * listens on the base port + i. Each process's JSON log lines are forwarded to `onLine`; a process
 * is ready when it logs msg "ready".
 */
export function spawnServices(
  replicas: Replicas,
  env: NodeJS.ProcessEnv,
  bind: { host: string; port: number },
  onLine: (service: string, line: string) => void,
): ServiceProcess[] {
  const processes: ServiceProcess[] = [];
  for (const service of SERVICES) {
    for (let i = 0; i < replicas[service]; i++) {
      const replica = `${service}-${i + 1}`;
      const port = service === 'gateway' ? bind.port + i : undefined;
      const childEnv: NodeJS.ProcessEnv = { ...env, WORLD_REPLICA: replica };
      if (port !== undefined) childEnv.WORLD_BIND = `${bind.host}:${port}`;
      const child = spawn(process.execPath, [serviceEntry(service)], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      const ready = new Promise<void>((resolve, reject) => {
        const watch = (buf: Buffer) => {
          for (const line of buf.toString('utf8').split('\n')) {
            if (line === '') continue;
            onLine(replica, line);
            if (/"msg":"ready"/.test(line)) resolve();
          }
        };
        child.stdout!.on('data', watch);
        child.stderr!.on('data', watch);
        child.on('exit', (code, signal) => reject(new CliError(`${replica} exited (code ${code}, signal ${signal}) before it was ready`)));
      });
      ready.catch(() => undefined);
      processes.push({ service, replica, child, port, ready });
    }
  }
  return processes;
}
