/**
 * World distributed (DESIGN.md §5): a NATS server started with infra/nats/nats.conf on a free
 * port, a fresh PostgreSQL database on the machine's server, and the four services as their own
 * processes from their built entries (apps/<service>/dist/main.js), as `world up` runs them.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { NatsRpcClient } from '@world/runtime';
import { startProcess, type BenchProcess } from '../proc.js';
import { OperatorApi } from './operator.js';
import { repoPath } from './paths.js';
import type { Target } from './target.js';

/** The services in start order (the ledger owns genesis). */
export const SERVICES = ['ledger', 'broker', 'planner', 'gateway'] as const;
type ServiceName = (typeof SERVICES)[number];

/** The PostgreSQL server a run creates its database on (trust auth, as the tests use). */
export function adminUrl(): string {
  return (
    process.env.WORLD_BENCH_DATABASE_URL ??
    process.env.WORLD_TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres'
  );
}

/** A distributed World plus what the harness uses behind the gateway. */
export interface DistributedTarget extends Target {
  /** the operator credential the gateway was started with */
  operatorToken: string;
  kind: 'distributed';
  natsUrl: string;
  prefix: string;
  databaseUrl: string;
  /** a client on the services' subjects (fill the log, pump an episode) */
  rpc: NatsRpcClient;
  /** the services by name */
  services: Record<ServiceName, BenchProcess>;
  nats: BenchProcess;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        resolve(typeof address === 'object' && address !== null ? address.port : 0),
      );
    });
  });
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Starts a JetStream NATS server of the repository's config on a free loopback port, its store
 * under `root/<dir>`; the caller waits for its ready line and stops it.
 */
export async function startNats(
  root: string,
  dir: string,
): Promise<{ nats: BenchProcess; natsPort: number }> {
  const natsPort = await freePort();
  const natsDir = join(root, dir);
  await mkdir(natsDir, { recursive: true });
  const args = ['-c', repoPath('infra/nats/nats.conf'), '-a', '127.0.0.1', '-p', String(natsPort)];
  const nats = startProcess('nats', 'nats-server', [...args, '-js', '-sd', natsDir], {
    PATH: process.env.PATH,
  });
  return { nats, natsPort };
}

/**
 * Starts NATS, creates the database and starts the four services.
 * @param nodeArgs extra node flags for the service processes (profiling)
 * @throws when a process never logs ready (everything started is stopped first)
 */
export async function startDistributedTarget(
  root: string,
  fixtureDir: string,
  runTag: string,
  nodeArgs: string[] = [],
): Promise<DistributedTarget> {
  const { nats, natsPort } = await startNats(root, 'nats');
  const started: BenchProcess[] = [nats];
  const dbName = `bench_${runTag.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`;
  let dbCreated = false;
  const cleanup = async () => {
    for (const p of started.reverse()) await p.stop();
    if (dbCreated) await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  };
  try {
    await nats.waitFor(/Server is ready/);
    await adminQuery(`CREATE DATABASE "${dbName}"`);
    dbCreated = true;
    const url = new URL(adminUrl());
    url.pathname = `/${dbName}`;
    const databaseUrl = url.toString();
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const prefix = `bench-${randomBytes(4).toString('hex')}`;
    const operatorToken = randomBytes(32).toString('hex');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: join(root, 'distributed-home'),
      WORLD_WORKSPACE_ROOT: join(root, 'distributed-home', 'worktrees'),
      WORLD_OPERATOR_TOKEN: operatorToken,
      WORLD_DB_PATH: dbName,
    };
    const services = {} as Record<ServiceName, BenchProcess>;
    for (const service of SERVICES) {
      const serviceEnv: NodeJS.ProcessEnv = { ...env, WORLD_REPLICA: `${service}-1` };
      if (service === 'gateway') serviceEnv.WORLD_BIND = '127.0.0.1:0';
      services[service] = startProcess(
        service,
        process.execPath,
        [...nodeArgs, repoPath(`apps/${service}/dist/main.js`)],
        serviceEnv,
      );
      started.push(services[service]);
    }
    const readyLines = await Promise.all(SERVICES.map((s) => services[s].waitFor(/"msg":"ready"/)));
    const baseUrl = (JSON.parse(readyLines[SERVICES.indexOf('gateway')]!) as { url: string }).url;
    const operator = new OperatorApi(baseUrl, operatorToken);
    const rpc = await NatsRpcClient.connect(natsUrl, prefix, 'bench-harness');
    return {
      kind: 'distributed',
      mcpUrl: `${baseUrl}/mcp`,
      baseUrl,
      processes: [...SERVICES.map((s) => services[s]), nats],
      natsUrl,
      prefix,
      databaseUrl,
      rpc,
      services,
      nats,
      async watched() {
        const client = new pg.Client({ connectionString: adminUrl() });
        await client.connect();
        try {
          const { rows } = await client.query<{ pid: number }>(
            'SELECT pid FROM pg_stat_activity WHERE datname = $1',
            [dbName],
          );
          return [
            ...SERVICES.map((s) => services[s]),
            nats,
            ...rows.map((r) => ({ name: 'postgres', pid: r.pid })),
          ];
        } finally {
          await client.end();
        }
      },
      clients: (n, label, options) =>
        operator.clients(n, label, fixtureDir, runTag, options?.sharedEpisode ?? false),
      headIndex: () => operator.headIndex(),
      operatorToken,
      async close() {
        await rpc.close();
        // Stop the edge first so nothing new arrives, the ledger last.
        for (const s of [...SERVICES].reverse()) await services[s].stop();
        started.splice(0, started.length, nats);
        await cleanup();
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
