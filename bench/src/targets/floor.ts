/**
 * The floor (issue 19): NATS started as the distributed target starts it, a fresh PostgreSQL
 * database on the machine's server holding the floor's tables (../floor/schema.ts), and the
 * four floor processes from bench/dist/floor/, each named after the World service whose role it
 * plays (so the CPU table puts floor and World side by side per role).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EPISODE_HEADER } from '../floor/gateway.js';
import { FLOOR_DDL, HEAD_INDEX } from '../floor/schema.js';
import type { BenchProcess } from '../proc.js';
import { SERVICES, startStage, withClient } from './stage.js';
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
  const stage = await startStage(root, 'floor-nats', 'floor', runTag);
  const { nats, natsUrl, databaseUrl } = stage;
  try {
    await withClient(databaseUrl, (c) => c.query(FLOOR_DDL));
    const prefix = `floor-${randomBytes(4).toString('hex')}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NATS_URL: natsUrl,
      FLOOR_PREFIX: prefix,
      DATABASE_URL: databaseUrl,
      BENCH_DIR: fixtureDir,
      BENCH_BIND: '127.0.0.1:0',
    };
    const { services, gatewayUrl: mcpUrl } = await stage.startRoles(
      (role) => join(FLOOR_DIR, `${role}.js`),
      () => env,
      nodeArgs,
    );
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
      watched: () => stage.watched(),
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
        await stage.close();
      },
    };
  } catch (err) {
    await stage.close();
    throw err;
  }
}
