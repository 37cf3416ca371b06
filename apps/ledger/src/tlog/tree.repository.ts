/**
 * The reads and writes of the log's Merkle tree outside the commit path (RFC 9162): stored
 * nodes by id (the `GetNodes` of @world/tlog's proofs), the head's tree, and the signed
 * checkpoints. Raw, fixed-text named statements (as the commit path's; append.statements.ts).
 */
import type { DatabaseHandle } from '@world/runtime';
import { NodeStoreError, type GetNodes, type NodeId, type TreeState } from '@world/tlog';
import { decodeBorder } from '../commit/tree.js';
import { SELECTED_HEAD } from '../db/schema.js';

/** The hashes of nodes by id, in the order asked (null for a node not stored). */
const NODES = {
  name: 'ledger_tree_nodes',
  text: `SELECT n.hash FROM unnest($1::smallint[], $2::bigint[]) WITH ORDINALITY AS u(level, node_index, ord)
  LEFT JOIN ledger.tree_nodes n ON n.level = u.level AND n.node_index = u.node_index
 ORDER BY u.ord`,
};

const HEAD_TREE = {
  name: 'ledger_tree_head',
  text: `SELECT entry_index, tree_border FROM ledger.heads WHERE key = '${SELECTED_HEAD}'`,
};

const LATEST_CHECKPOINT = {
  name: 'ledger_tree_latest_checkpoint',
  text: `SELECT tree_size, root_hash, note FROM ledger.checkpoints ORDER BY tree_size DESC LIMIT 1`,
};

const INSERT_CHECKPOINT = {
  name: 'ledger_tree_insert_checkpoint',
  text: `INSERT INTO ledger.checkpoints (tree_size, root_hash, note) VALUES ($1, $2, $3)
ON CONFLICT (tree_size) DO NOTHING`,
};

/** A signed checkpoint as stored. */
export interface StoredCheckpoint {
  size: number;
  rootHash: Buffer;
  note: string;
}

function bytes(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value)
    ? value
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** The tree's storage, for proofs and checkpoints. */
export class TreeRepository {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * The GetNodes of the stored tree: one query for any number of nodes.
   * @throws NodeStoreError naming the first node that is not stored
   */
  readonly getNodes: GetNodes = async (ids: readonly NodeId[]) => {
    const { rows } = await this.database.query<{ hash: Uint8Array | null }>(
      NODES.text,
      [ids.map((id) => id.level), ids.map((id) => id.index)],
      NODES.name,
    );
    return rows.map((row, i) => {
      if (row.hash === null) {
        const { level, index } = ids[i]!;
        throw new NodeStoreError(`tree node (level ${level}, index ${index}) is not stored`);
      }
      return bytes(row.hash);
    });
  };

  /**
   * The tree of the selected head (size = head entry index + 1).
   * @throws Error before genesis; TreeStateError for a missing or malformed border
   */
  async headTree(): Promise<TreeState> {
    const { rows } = await this.database.query<{
      entry_index: unknown;
      tree_border: Uint8Array | null;
    }>(HEAD_TREE.text, [], HEAD_TREE.name);
    const row = rows[0];
    if (row === undefined)
      throw new Error('ledger head row is missing: genesis was not bootstrapped');
    return decodeBorder(Number(row.entry_index) + 1, row.tree_border);
  }

  /** The signed checkpoint of the largest size, or null before the first. */
  async latestCheckpoint(): Promise<StoredCheckpoint | null> {
    const { rows } = await this.database.query<{
      tree_size: unknown;
      root_hash: Uint8Array;
      note: string;
    }>(LATEST_CHECKPOINT.text, [], LATEST_CHECKPOINT.name);
    const row = rows[0];
    return row === undefined
      ? null
      : { size: Number(row.tree_size), rootHash: bytes(row.root_hash), note: row.note };
  }

  /** Stores a signed checkpoint (a size already signed keeps its first note). */
  async saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    await this.database.query(
      INSERT_CHECKPOINT.text,
      [checkpoint.size, checkpoint.rootHash, checkpoint.note],
      INSERT_CHECKPOINT.name,
    );
  }
}
