/**
 * Builds the log's Merkle tree where the head row has none yet: right after the genesis of a
 * fresh database (one leaf), and once for a database written before the tree existed (every
 * entry, in index order). Runs in one transaction holding the head row's lock, so no append
 * interleaves, and writes through the same law as every commit (commit/tree.ts extendTree).
 */
import type { LogEntry } from '@world/canonical';
import type { DatabaseHandle, RawQuery } from '@world/runtime';
import { EMPTY_TREE, type TreeState } from '@world/tlog';
import { extendTree } from '../commit/tree.js';
import { SELECTED_HEAD } from '../db/schema.js';
import { storedRef } from '../db/statements.js';

/** Entries read (and leaves appended) per round trip while building a tree. */
const BUILD_PAGE = 5000;

interface EntryRow {
  entry_index: unknown;
  entry_hash: string;
  semantics_epoch: unknown;
  transition_fn: string;
  interpreter: string;
  prev_entry_hash: string;
  written_by: string;
  transition_ref: string;
}

function entryOf(row: EntryRow): LogEntry {
  return {
    header: {
      entryIndex: Number(row.entry_index),
      semanticsEpoch: Number(row.semantics_epoch),
      transitionFn: storedRef(row.transition_fn),
      interpreter: storedRef(row.interpreter),
      prevEntryHash: storedRef(row.prev_entry_hash),
      writtenBy: row.written_by,
    },
    entryHash: storedRef(row.entry_hash),
    transitionRef: storedRef(row.transition_ref),
  };
}

/**
 * Builds the tree over entries 0…head when the head row has no border (a no-op otherwise).
 * @returns the number of leaves built (0 when the tree was already there)
 * @throws Error when the log is not dense from 0 to the head (the tree of a log with a gap is
 *   not defined; the integrity scan names the gap)
 */
export function bootstrapTree(database: DatabaseHandle): Promise<number> {
  return database.transaction(async (query) => {
    const { rows } = await query<{ entry_index: unknown; has_tree: boolean }>(
      `SELECT entry_index, tree_border IS NOT NULL AS has_tree FROM ledger.heads
        WHERE key = $1 FOR UPDATE`,
      [SELECTED_HEAD],
    );
    const head = rows[0];
    if (head === undefined || head.has_tree) return 0;
    const size = Number(head.entry_index) + 1;
    // A half-built tree of an earlier attempt was rolled back with it; nodes can only be stale
    // if written from outside, so they are replaced.
    await query('DELETE FROM ledger.tree_nodes');
    let state: TreeState = EMPTY_TREE;
    let border: Buffer = Buffer.alloc(0);
    while (state.size < size) {
      const page = await readEntries(query, state.size, Math.min(BUILD_PAGE, size - state.size));
      const extension = extendTree(state, page);
      await query(
        `INSERT INTO ledger.tree_nodes (level, node_index, hash)
         SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`,
        [extension.levels, extension.indexes, extension.hashes],
      );
      state = extension.state;
      border = extension.border;
    }
    await query(`UPDATE ledger.heads SET tree_border = $1 WHERE key = $2`, [border, SELECTED_HEAD]);
    return size;
  });
}

/**
 * Entries from..from+count−1 in index order.
 * @throws Error naming the first missing index
 */
async function readEntries(query: RawQuery, from: number, count: number): Promise<LogEntry[]> {
  const { rows } = await query<EntryRow>(
    `SELECT entry_index, entry_hash, semantics_epoch, transition_fn, interpreter,
            prev_entry_hash, written_by, transition_ref
       FROM ledger.log_entries WHERE entry_index >= $1 AND entry_index < $2
      ORDER BY entry_index`,
    [from, from + count],
  );
  const entries = rows.map(entryOf);
  entries.forEach((entry, i) => {
    if (entry.header.entryIndex !== from + i)
      throw new Error(`cannot build the log's tree: log entry #${from + i} is missing`);
  });
  if (entries.length !== count)
    throw new Error(`cannot build the log's tree: log entry #${from + entries.length} is missing`);
  return entries;
}
