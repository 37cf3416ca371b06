/**
 * The floor's ledger (issue 19): answers `ledger.commit` with one statement that moves the head
 * and writes the entry, replying with the entry's index. Process entry: `node
 * bench/dist/floor/ledger.js` with NATS_URL, FLOOR_PREFIX and DATABASE_URL.
 */
import { decode, isEntry, natsConnect, pgPool, runEntry, serve, subject } from './common.js';
import { APPEND_ENTRY } from './schema.js';

/** What the planner sends. */
export interface CommitRequest {
  episode: string;
  intentId: string;
}

/** What the ledger answers. */
export type CommitReply = { ok: true; entryIndex: number } | { ok: false; error: string };

async function start(): Promise<void> {
  const pool = pgPool('ledger');
  const nc = await natsConnect('ledger');
  const commit = async (req: CommitRequest): Promise<CommitReply> => {
    const { rows } = await pool.query<{ entry_index: string }>({
      ...APPEND_ENTRY,
      values: [req.episode, req.intentId],
    });
    return { ok: true, entryIndex: Number(rows[0]!.entry_index) };
  };
  nc.subscribe(subject('commit'), {
    callback: (err, msg) => {
      if (err !== null) return;
      commit(decode<CommitRequest>(msg.data)).then(
        (reply) => msg.respond(JSON.stringify(reply)),
        (e: unknown) => msg.respond(JSON.stringify({ ok: false, error: String(e) })),
      );
    },
  });
  await nc.flush();
  serve('ledger', {}, async () => {
    await nc.drain();
    await pool.end();
  });
}

if (isEntry(import.meta.url)) runEntry('ledger', start);
