/**
 * The floor (issue 19): NATS started as the distributed target starts it, a fresh PostgreSQL
 * database on the machine's server holding the floor's tables (../floor/schema.ts), and the
 * four floor processes from bench/dist/floor/, each named after the World service whose role it
 * plays (so the CPU table puts floor and World side by side per role).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { EPISODE_HEADER } from '../floor/gateway.js';
import { FLOOR_DDL, HEAD_INDEX } from '../floor/schema.js';
import { startProcess, type BenchProcess } from '../proc.js';
import { adminUrl, SERVICES, startNats } from './distributed.js';
import type { Target } from './target.js';

const FLOOR_DIR = fileURLToPath(new URL('../floor/', import.meta.url));

/** A started floor, with what the profiling pass needs behind its gateway. */
export interface FloorTarget extends Target {
  kind: 'floor';
  natsUrl: string;
  prefix: string;
  databaseUrl: string;
  nats: BenchProcess;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Starts NATS, creates the database and its tables, and starts the floor's four processes.
 * @param nodeArgs extra node flags for the four processes (profiling)
 * @throws when a process never logs ready (everything started is stopped first)
 */
export async function startFloorTarget(
  root: string,
  fixtureDir: string,
  runTag: string,
  nodeArgs: string[] = [],
): Promise<FloorTarget> {
  const { nats, natsPort } = await startNats(root, 'floor-nats');
  const started: BenchProcess[] = [nats];
  const dbName = `floor_${runTag.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`;
  let dbCreated = false;
  const cleanup = async () => {
    for (const p of started.reverse()) await p.stop();
    if (dbCreated)
      await withClient(adminUrl(), (c) =>
        c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`),
      );
  };
  try {
    await nats.waitFor(/Server is ready/);
    await withClient(adminUrl(), (c) => c.query(`CREATE DATABASE "${dbName}"`));
    dbCreated = true;
    const url = new URL(adminUrl());
    url.pathname = `/${dbName}`;
    const databaseUrl = url.toString();
    await withClient(databaseUrl, (c) => c.query(FLOOR_DDL));
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const prefix = `floor-${randomBytes(4).toString('hex')}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NATS_URL: natsUrl,
      FLOOR_PREFIX: prefix,
      DATABASE_URL: databaseUrl,
      BENCH_DIR: fixtureDir,
      BENCH_BIND: '127.0.0.1:0',
    };
    const services = {} as Record<(typeof SERVICES)[number], BenchProcess>;
    for (const role of SERVICES) {
      services[role] = startProcess(
        role,
        process.execPath,
        [...nodeArgs, join(FLOOR_DIR, `${role}.js`)],
        env,
      );
      started.push(services[role]);
    }
    const ready = await Promise.all(SERVICES.map((s) => services[s].waitFor(/"msg":"ready"/)));
    const mcpUrl = (JSON.parse(ready[SERVICES.indexOf('gateway')]!) as { url: string }).url;
    const processes = [...SERVICES.map((s) => services[s]), nats];
    return {
      kind: 'floor',
      mcpUrl,
      baseUrl: new URL(mcpUrl).origin,
      processes,
      natsUrl,
      prefix,
      databaseUrl,
      nats,
      watched: () =>
        withClient(adminUrl(), async (c) => {
          const { rows } = await c.query<{ pid: number }>(
            'SELECT pid FROM pg_stat_activity WHERE datname = $1',
            [dbName],
          );
          return [...processes, ...rows.map((r) => ({ name: 'postgres', pid: r.pid }))];
        }),
      async clients(n, label, options) {
        const tag = `${label}-${randomBytes(3).toString('hex')}`;
        return Array.from({ length: n }, (_, i) => ({
          headers: { [EPISODE_HEADER]: options?.sharedEpisode ? tag : `${tag}-${i}` },
        }));
      },
      headIndex: () =>
        withClient(databaseUrl, async (c) =>
          Number((await c.query<{ entry_index: string }>(HEAD_INDEX)).rows[0]!.entry_index),
        ),
      async close() {
        // The edge first so nothing new arrives, the ledger last, then NATS and the database.
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
