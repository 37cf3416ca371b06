/**
 * World embedded (DESIGN.md §5): the `world start` path (apps/cli/dist/main.js start) in its own
 * process — its own PostgreSQL server on a fresh WORLD_HOME (created by that first start), the
 * in-process bus, no NATS.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { descendants, startProcess } from '../proc.js';
import { OperatorApi } from './operator.js';
import type { Target } from './target.js';
import { repoPath } from './paths.js';

/**
 * Starts `world start` with WORLD_HOME under `root`, on a free port.
 * @param nodeArgs extra node flags (profiling)
 * @throws when it never logs ready
 */
export async function startEmbeddedTarget(
  root: string,
  fixtureDir: string,
  runTag: string,
  nodeArgs: string[] = [],
): Promise<Target> {
  const home = join(root, 'embedded-home');
  const proc = startProcess(
    'world-embedded',
    process.execPath,
    [...nodeArgs, repoPath('apps/cli/dist/main.js'), 'start'],
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      WORLD_HOME: home,
      WORLD_BIND: '127.0.0.1:0',
    },
  );
  const ready = JSON.parse(await proc.waitFor(/"msg":"ready"/)) as { url: string };
  const baseUrl = ready.url;
  const operator = new OperatorApi(
    baseUrl,
    (await readFile(join(home, 'operator.token'), 'utf8')).trim(),
  );
  return {
    kind: 'embedded',
    mcpUrl: `${baseUrl}/mcp`,
    baseUrl,
    processes: [proc],
    // The machine's CPU per call of embedded World: its process, and every process it started —
    // the PostgreSQL server (postmaster and backends, all named `postgres`) and its watchdog.
    watched: async () => [
      proc,
      ...descendants(proc.pid).map((d) => ({
        name: d.comm === 'postgres' ? 'postgres' : 'world-embedded',
        pid: d.pid,
      })),
    ],
    clients: (n, label, options) =>
      operator.clients(n, label, fixtureDir, runTag, options?.sharedEpisode ?? false),
    headIndex: () => operator.headIndex(),
    close: () => proc.stop(),
  };
}
