/**
 * The only code that writes the genesis and builds the log's Merkle tree where the head has
 * none: each in one transaction, the genesis under the ledger's advisory lock (so replicas
 * booting together on one database create it exactly once), the tree holding the head row's lock
 * (so no append interleaves).
 */
import type { LogEntry } from '@world/canonical';
import type { DatabaseHandle, RawQuery } from '@world/runtime';
import { LEDGER_LOCK_KEY } from '../constants.js';
import { SELECTED_HEAD } from '../db/schema.js';
import {
  INSERT_OBJECTS,
  insertObjectsParams,
  insertTreeNodes,
  storedRef,
} from '../db/statements.js';
import type { TreeExtension } from '../commit/tree.js';
import type { Genesis } from './genesis.js';

/** Tree nodes from three parallel arrays. */
const INSERT_TREE_NODES = insertTreeNodes({
  levels: '$1::smallint[]',
  indexes: '$2::bigint[]',
  hashes: '$3::bytea[]',
});

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

/** The tree build's operations; valid only inside `GenesisRepository.buildTree`. */
export class TreeBuildTx {
  constructor(private readonly query: RawQuery) {}

  /**
   * Locks the head row and says whether it still needs a tree.
   * @returns the head's entry index when the head has no tree border, else null (also before
   *   genesis)
   */
  async headWithoutTree(): Promise<number | null> {
    const { rows } = await this.query<{ entry_index: unknown; has_tree: boolean }>(
      `SELECT entry_index, tree_border IS NOT NULL AS has_tree FROM ledger.heads
        WHERE key = $1 FOR UPDATE`,
      [SELECTED_HEAD],
    );
    const head = rows[0];
    return head === undefined || head.has_tree ? null : Number(head.entry_index);
  }

  /**
   * Removes every tree node. A half-built tree of an earlier attempt was rolled back with it;
   * nodes can only be stale if written from outside, so they are replaced.
   */
  async clearNodes(): Promise<void> {
    await this.query('DELETE FROM ledger.tree_nodes');
  }

  /** Entries from..from+count−1 (fewer when some are missing), in index order. */
  async entries(from: number, count: number): Promise<LogEntry[]> {
    const { rows } = await this.query<EntryRow>(
      `SELECT entry_index, entry_hash, semantics_epoch, transition_fn, interpreter,
              prev_entry_hash, written_by, transition_ref
         FROM ledger.log_entries WHERE entry_index >= $1 AND entry_index < $2
        ORDER BY entry_index`,
      [from, from + count],
    );
    return rows.map(entryOf);
  }

  /** Writes the nodes of one extension of the tree. */
  async insertNodes(extension: TreeExtension): Promise<void> {
    await this.query(INSERT_TREE_NODES, [extension.levels, extension.indexes, extension.hashes]);
  }

  /** Stores the head's tree border (heads.tree_border). */
  async setBorder(border: Buffer): Promise<void> {
    await this.query(`UPDATE ledger.heads SET tree_border = $1 WHERE key = $2`, [
      border,
      SELECTED_HEAD,
    ]);
  }
}

/** Writes the genesis records once per database (DESIGN.md §7.3) and builds a missing tree. */
export class GenesisRepository {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * Writes the genesis unless a head is already selected (a later start never rewrites it, nor
   * resets a registry head that moved since).
   * @returns true when this call created the genesis
   */
  bootstrap(records: Genesis): Promise<boolean> {
    return this.database.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock($1)', [LEDGER_LOCK_KEY]);
      const { rows } = await query('SELECT key FROM ledger.heads WHERE key = $1', [SELECTED_HEAD]);
      if (rows.length > 0) return false;
      const { object, epochRegistry, entry, world } = records;
      const { header } = entry;
      await query(INSERT_OBJECTS, insertObjectsParams([object, epochRegistry]));
      await query(
        `INSERT INTO ledger.log_entries (entry_index, entry_hash, semantics_epoch, transition_fn,
           interpreter, prev_entry_hash, written_by, transition_ref)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          header.entryIndex,
          entry.entryHash,
          header.semanticsEpoch,
          header.transitionFn,
          header.interpreter,
          header.prevEntryHash,
          header.writtenBy,
          entry.transitionRef,
        ],
      );
      await query(
        'INSERT INTO ledger.worlds (ref, revision, state_root, log_head) VALUES ($1, $2, $3, $4)',
        [world.ref, world.revision, world.stateRoot, world.logHead],
      );
      await query('INSERT INTO ledger.commit_objects (object_ref, entry_index) VALUES ($1, $2)', [
        object.hash,
        header.entryIndex,
      ]);
      await query(
        `INSERT INTO ledger.heads (key, world_ref, entry_index, entry_hash, revision)
         VALUES ($1, $2, $3, $4, $5)`,
        [SELECTED_HEAD, world.ref, header.entryIndex, entry.entryHash, world.revision],
      );
      await query(
        'INSERT INTO ledger.registry_heads (name, head) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [epochRegistry.semanticId, epochRegistry.hash],
      );
      return true;
    });
  }

  /** Runs `work` in one transaction (the tree build). */
  buildTree<T>(work: (t: TreeBuildTx) => Promise<T>): Promise<T> {
    return this.database.transaction((query) => work(new TreeBuildTx(query)));
  }
}
