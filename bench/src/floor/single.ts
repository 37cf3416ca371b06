/**
 * The embedded floor (issue 13): what the design makes every call do when all of World runs in
 * one process on its own PostgreSQL server — the baseline's HTTP/MCP stack (mcp-http.ts) whose
 * tool commits an intent row, reads the file, commits an outcome row and commits a log entry
 * with the head moved in the same statement: three durable single-statement commits through one
 * pool (../floor/schema.ts, the distributed floor's statements), no bus, no World code.
 *
 * Process entry: `node bench/dist/floor/single.js` with DATABASE_URL, BENCH_DIR (the directory
 * holding the file) and BENCH_BIND (host:port); logs `{"msg":"ready","url":…}`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseBind, startToolServer } from '../baseline/mcp-http.js';
import { safeRelative } from '../safe-path.js';
import { env, isEntry, pgPool, runEntry, serve } from './common.js';
import { EPISODE_HEADER } from './gateway.js';
import { APPEND_ENTRY, INSERT_INTENT, INSERT_OUTCOME } from './schema.js';

async function start(): Promise<void> {
  const dir = env('BENCH_DIR');
  const pool = pgPool('single');
  const running = await startToolServer(
    'bench-floor-single',
    parseBind(process.env.BENCH_BIND),
    async (args, headers) => {
      const rel = safeRelative(args?.path);
      if (rel === null) return { ok: false, refused: 'bad request' };
      const episode = headers?.get(EPISODE_HEADER) ?? 'floor';
      const intent = await pool.query<{ id: string }>({ ...INSERT_INTENT, values: [episode, rel] });
      const intentId = intent.rows[0]!.id;
      let content: string;
      try {
        content = await readFile(join(dir, rel), 'utf8');
      } catch {
        await pool.query({ ...INSERT_OUTCOME, values: [intentId, false, 0] });
        return { ok: false, refused: 'no such file' };
      }
      await pool.query({ ...INSERT_OUTCOME, values: [intentId, true, Buffer.byteLength(content)] });
      await pool.query({ ...APPEND_ENTRY, values: [episode, intentId] });
      return { ok: true, content };
    },
  );
  serve('single', { url: running.url }, async () => {
    await running.close();
    await pool.end();
  });
}

if (isEntry(import.meta.url)) runEntry('single', start);
