/**
 * The bare baseline (issue 7): a minimal MCP server on the same SDK and HTTP stack as World's
 * gateway (mcp-http.ts) with one tool that reads the same 2 KiB file from disk and returns it.
 * No auth, no broker, no budget, no log.
 *
 * Process entry: `node bench/dist/baseline/server.js` with BENCH_DIR (the directory holding the
 * file) and BENCH_BIND (host:port, port 0 = any); logs one JSON line `{"msg":"ready","url":…}`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { safeRelative } from '../safe-path.js';
import { parseBind, startToolServer } from './mcp-http.js';

/**
 * Starts the baseline on `bind` serving files of `dir`.
 * @returns the MCP endpoint URL and a close function
 */
export function startBaseline(
  dir: string,
  bind: { host: string; port: number },
): Promise<{ url: string; close(): Promise<void> }> {
  return startToolServer('bench-baseline', bind, async (args) => {
    const rel = safeRelative(args?.path);
    if (rel === null) return { ok: false, refused: 'bad request' };
    try {
      return { ok: true, content: await readFile(join(dir, rel), 'utf8') };
    } catch {
      return { ok: false, refused: 'no such file' };
    }
  });
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const dir = process.env.BENCH_DIR;
  if (dir === undefined) {
    process.stderr.write('baseline: BENCH_DIR is required\n');
    process.exit(2);
  }
  const running = await startBaseline(dir, parseBind(process.env.BENCH_BIND));
  process.stdout.write(`${JSON.stringify({ msg: 'ready', url: running.url, pid: process.pid })}\n`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
