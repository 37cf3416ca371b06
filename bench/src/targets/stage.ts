/**
 * What the distributed target and the floor both stand on: a JetStream NATS server of the
 * repository's config on a free loopback port, a fresh PostgreSQL database on the machine's
 * server, the four role processes started from their entries (waiting for each `ready` line),
 * and the teardown that stops them (edge first, ledger last), then NATS, then drops the database.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { startProcess, type BenchProcess } from '../proc.js';
import { repoPath } from './paths.js';

/** The services in start order (the ledger owns genesis). */
export const SERVICES = ['ledger', 'broker', 'planner', 'gateway'] as const;
/** One of the four roles. */
export type ServiceName = (typeof SERVICES)[number];

/** The PostgreSQL server a run creates its database on (trust auth, as the tests use). */
export function adminUrl(): string {
  return (
    process.env.WORLD_BENCH_DATABASE_URL ??
    process.env.WORLD_TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres'
  );
}

/** Runs `fn` on a fresh client of `url`, ended afterwards. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
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

/**
 * Starts a JetStream NATS server of the repository's config on a free loopback port, its store
 * under `root/<dir>`; the caller waits for its ready line and stops it.
 */
async function startNats(
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

/** A started NATS server and database, and what to start and stop on them. */
export interface Stage {
  nats: BenchProcess;
  natsUrl: string;
  dbName: string;
  databaseUrl: string;
  /**
   * Starts the four roles in SERVICES order and waits for every `"msg":"ready"` line.
   * @param entry a role's entry script
   * @param env a role's environment
   * @returns the roles and the `url` of the gateway's ready line
   */
  startRoles(
    entry: (role: ServiceName) => string,
    env: (role: ServiceName) => NodeJS.ProcessEnv,
    nodeArgs: string[],
  ): Promise<{ services: Record<ServiceName, BenchProcess>; gatewayUrl: string }>;
  /** the roles and NATS, plus the PostgreSQL backends serving this database (CPU accounting) */
  watched(): Promise<Array<{ name: string; pid: number }>>;
  /** stops the roles (edge first, ledger last), then NATS, then drops the database */
  close(): Promise<void>;
}

/**
 * Starts NATS (store under `root/<natsDir>`) and creates the database
 * `<dbPrefix>_<runTag>_<6 hex>`; a failure stops what was started and drops what was created.
 * @throws when NATS never logs ready or the database cannot be created
 */
export async function startStage(
  root: string,
  natsDir: string,
  dbPrefix: string,
  runTag: string,
): Promise<Stage> {
  const { nats, natsPort } = await startNats(root, natsDir);
  const started: BenchProcess[] = [nats];
  const dbName = `${dbPrefix}_${runTag.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`;
  let dbCreated = false;
  let services: Record<ServiceName, BenchProcess> | undefined;
  const close = async () => {
    for (const p of started.reverse()) await p.stop();
    started.length = 0;
    if (dbCreated)
      await withClient(adminUrl(), (c) =>
        c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`),
      );
    dbCreated = false;
  };
  try {
    await nats.waitFor(/Server is ready/);
    await withClient(adminUrl(), (c) => c.query(`CREATE DATABASE "${dbName}"`));
    dbCreated = true;
  } catch (err) {
    await close();
    throw err;
  }
  const url = new URL(adminUrl());
  url.pathname = `/${dbName}`;
  return {
    nats,
    natsUrl: `nats://127.0.0.1:${natsPort}`,
    dbName,
    databaseUrl: url.toString(),
    async startRoles(entry, env, nodeArgs) {
      const roles = {} as Record<ServiceName, BenchProcess>;
      for (const role of SERVICES) {
        roles[role] = startProcess(role, process.execPath, [...nodeArgs, entry(role)], env(role));
        // NATS stays first: stopping newest first takes the gateway down before the ledger.
        started.push(roles[role]);
      }
      services = roles;
      const ready = await Promise.all(SERVICES.map((s) => roles[s].waitFor(/"msg":"ready"/)));
      const gatewayUrl = (JSON.parse(ready[SERVICES.indexOf('gateway')]!) as { url: string }).url;
      return { services: roles, gatewayUrl };
    },
    watched: () =>
      withClient(adminUrl(), async (c) => {
        const { rows } = await c.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1',
          [dbName],
        );
        const roles = services === undefined ? [] : SERVICES.map((s) => services![s]);
        return [...roles, nats, ...rows.map((r) => ({ name: 'postgres', pid: r.pid }))];
      }),
    close,
  };
}
