/**
 * The one law of how an append extends the log's Merkle tree (RFC 9162 §2.1.1): the leaves are
 * the appended entries' canonical bytes (`entryBytes`, what their entry hash hashes), in index
 * order, appended to the compact range of the tree before them (@world/tlog appendLeaves). Every
 * commit path — the one-statement append (APPEND_ON_HEAD's tree CTE) and the commit transaction
 * (lone, group and REST: TREE_EXTEND, once per transaction; both in append.statements.ts) — gets
 * its rows and its new compact range from `extendTree` alone. Pure: no I/O.
 */
import { entryBytes, type LogEntry } from '@world/canonical';
import {
  appendLeaves,
  borderIds,
  checkTreeState,
  HASH_SIZE,
  leafHash,
  TreeStateError,
  type TreeState,
} from '@world/tlog';

/** What one append writes to the tree: rows of ledger.tree_nodes and the head's new border. */
export interface TreeExtension {
  /** the new nodes as three parallel arrays (level, node_index, hash), for unnest */
  levels: number[];
  indexes: number[];
  hashes: Buffer[];
  /** the compact range after the append, as heads.tree_border stores it */
  border: Buffer;
  /** the tree after the append */
  state: TreeState;
}

/** The leaf hash of a log entry: leafHash(entryBytes) (RFC 9162 §2.1.1). */
export function entryLeafHash(entry: LogEntry): Buffer {
  return leafHash(entryBytes(entry.header, entry.transitionRef));
}

/**
 * Extends the tree `before` by entries appended in one transaction (or one statement).
 * @param before the tree of every entry below entries[0] (size = entries[0]'s index)
 * @param entries the appended entries, in index order, contiguous
 * @throws TreeStateError when the entries do not start at `before.size` or are not contiguous (a
 *   caller bug: the entries were not chained on the head the tree belongs to)
 */
export function extendTree(before: TreeState, entries: readonly LogEntry[]): TreeExtension {
  entries.forEach((entry, i) => {
    if (entry.header.entryIndex !== before.size + i)
      throw new TreeStateError(
        `entry #${entry.header.entryIndex} cannot be leaf ${before.size + i} of the tree`,
      );
  });
  const { nodes, state } = appendLeaves(before, entries.map(entryLeafHash));
  return {
    levels: nodes.map((n) => n.level),
    indexes: nodes.map((n) => n.index),
    hashes: nodes.map((n) => n.hash),
    border: encodeBorder(state),
    state,
  };
}

/** A compact range as heads.tree_border stores it: its hashes concatenated, left to right. */
export function encodeBorder(state: TreeState): Buffer {
  return Buffer.concat(state.border.map((h) => Buffer.from(h)));
}

/**
 * The tree state of a head from its stored border.
 * @param size the tree size (head entry index + 1)
 * @throws TreeStateError when the border is missing or not one hash per set bit of the size
 */
export function decodeBorder(size: number, border: Uint8Array | null): TreeState {
  if (border === null) throw new TreeStateError(`the head row has no tree border at size ${size}`);
  const want = borderIds(size).length;
  if (border.length !== want * HASH_SIZE)
    throw new TreeStateError(
      `the head's tree border is ${border.length} bytes; a tree of size ${size} has ${want * HASH_SIZE}`,
    );
  const bytes = Buffer.from(border);
  const state = {
    size,
    border: Array.from({ length: want }, (_, i) =>
      bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE),
    ),
  };
  checkTreeState(state);
  return state;
}
