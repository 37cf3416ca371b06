/**
 * The baseline target: bench/dist/baseline/server.js in its own process, serving the fixture.
 */
import { fileURLToPath } from 'node:url';
import { startProcess } from '../proc.js';
import type { Target } from './target.js';

const SERVER = fileURLToPath(new URL('../baseline/server.js', import.meta.url));

/** Starts the baseline MCP server on a free port. @throws when it never logs ready */
export async function startBaselineTarget(
  fixtureDir: string,
  nodeArgs: string[] = [],
): Promise<Target> {
  const proc = startProcess('baseline', process.execPath, [...nodeArgs, SERVER], {
    PATH: process.env.PATH,
    BENCH_DIR: fixtureDir,
    BENCH_BIND: '127.0.0.1:0',
  });
  const ready = JSON.parse(await proc.waitFor(/"msg":"ready"/)) as { url: string };
  const mcpUrl = ready.url;
  return {
    kind: 'baseline',
    mcpUrl,
    baseUrl: new URL(mcpUrl).origin,
    processes: [proc],
    watched: async () => [proc],
    async clients(n) {
      return Array.from({ length: n }, () => ({ headers: {} }));
    },
    async headIndex() {
      return null;
    },
    close: () => proc.stop(),
  };
}
