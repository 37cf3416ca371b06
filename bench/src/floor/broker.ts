/**
 * The floor's broker (issue 19): answers `broker.execute` by committing the intent, reading the
 * file, committing the outcome and replying with the content; takes `broker.release` events
 * (the asynchronous lease release) without a reply. Process entry: `node
 * bench/dist/floor/broker.js` with NATS_URL, FLOOR_PREFIX, DATABASE_URL and BENCH_DIR (the
 * directory holding the file).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { safeRelative } from '../safe-path.js';
import { decode, env, isEntry, natsConnect, pgPool, runEntry, serve, subject } from './common.js';
import { INSERT_INTENT, INSERT_OUTCOME } from './schema.js';

/** What the planner sends. */
export interface ExecuteRequest {
  episode: string;
  path: string;
}

/** What the broker answers: the content, or why not; the intent id the ledger entry names. */
export type ExecuteReply =
  | { ok: true; intentId: string; content: string }
  | { ok: false; intentId?: string; refused: string };

async function start(): Promise<void> {
  const dir = env('BENCH_DIR');
  const pool = pgPool('broker');
  const nc = await natsConnect('broker');
  let releases = 0;
  const execute = async (req: ExecuteRequest): Promise<ExecuteReply> => {
    const rel = safeRelative(req.path);
    if (rel === null) return { ok: false, refused: 'bad request' };
    const intent = await pool.query<{ id: string }>({
      ...INSERT_INTENT,
      values: [req.episode, rel],
    });
    const intentId = intent.rows[0]!.id;
    let content: string;
    try {
      content = await readFile(join(dir, rel), 'utf8');
    } catch {
      await pool.query({ ...INSERT_OUTCOME, values: [intentId, false, 0] });
      return { ok: false, intentId, refused: 'no such file' };
    }
    await pool.query({ ...INSERT_OUTCOME, values: [intentId, true, Buffer.byteLength(content)] });
    return { ok: true, intentId, content };
  };
  nc.subscribe(subject('execute'), {
    callback: (err, msg) => {
      if (err !== null) return;
      execute(decode<ExecuteRequest>(msg.data)).then(
        (reply) => msg.respond(JSON.stringify(reply)),
        (e: unknown) => msg.respond(JSON.stringify({ ok: false, refused: String(e) })),
      );
    },
  });
  nc.subscribe(subject('release'), {
    callback: () => {
      releases++;
    },
  });
  await nc.flush();
  serve('broker', {}, async () => {
    await nc.drain();
    await pool.end();
    process.stderr.write(`floor-broker: ${releases} releases\n`);
  });
}

if (isEntry(import.meta.url)) runEntry('broker', start);
