/**
 * The tree part of the ledger's start-up integrity scan (RFC 9162 tree): the stored Merkle tree
 * nodes covering the entries the scan checked agree with those entries and with each other.
 * For the checked range [lowest, size):
 * 1. every leaf node (0, i) exists and is leafHash(entryBytes) of entry #i (only for entries that
 *    recompute to their own hash: a changed entry is already reported once, by the entry check);
 * 2. every perfect subtree node inside the range exists and is the hash of its two children
 *    (RFC 9162 §2.1.1), and no node covers leaves past the log's end;
 * 3. the head's stored compact range is the stored nodes it names.
 * Tree rows are checked with the entries they cover and not counted as rows of their own (the
 * row budget stays the entries' and objects'). Mismatches are reported, never repaired.
 */
import { borderIds, HASH_SIZE, nodeHash, nodeKey } from '@world/tlog';
import type { IntegrityScan } from '@world/runtime';
import type { TreeIntegrityRepository, TreeNodeRow } from './integrity.repository.js';

const describe = (n: { level: number; index: number }) =>
  `tree node (level ${n.level}, index ${n.index})`;

/**
 * Checks the tree rows of leaves [lowest, size).
 * @param leaves leaf hash of each checked entry that recomputes to its hash, by entry index
 */
export async function scanTree(
  repository: TreeIntegrityRepository,
  scan: IntegrityScan,
  lowest: number,
  size: number,
  leaves: ReadonlyMap<number, Buffer>,
): Promise<void> {
  const stored = new Map<string, TreeNodeRow>();
  for (const row of await repository.nodesFrom(lowest)) stored.set(nodeKey(row), row);
  for (const row of stored.values()) {
    if ((row.index + 1) * 2 ** row.level > size)
      scan.problem(`${describe(row)} covers leaves past the log's ${size} entries`);
  }
  // Level by level, every perfect subtree inside [lowest, size).
  for (let level = 0, width = 1; width <= size - lowest; level++, width *= 2) {
    for (let index = Math.ceil(lowest / width); (index + 1) * width <= size; index++) {
      const id = { level, index };
      const row = stored.get(nodeKey(id));
      if (row === undefined) {
        scan.problem(`${describe(id)} is missing`);
        continue;
      }
      if (level === 0) {
        const leaf = leaves.get(index);
        if (leaf !== undefined && !leaf.equals(row.hash))
          scan.problem(`${describe(id)} is not the leaf hash of log entry #${index}`);
        continue;
      }
      const left = stored.get(nodeKey({ level: level - 1, index: 2 * index }));
      const right = stored.get(nodeKey({ level: level - 1, index: 2 * index + 1 }));
      if (
        left !== undefined &&
        right !== undefined &&
        !nodeHash(left.hash, right.hash).equals(row.hash)
      )
        scan.problem(`${describe(id)} is not the hash of its two children`);
    }
  }
  const border = await repository.headBorder();
  const ids = borderIds(size);
  if (border === null || border.length !== ids.length * HASH_SIZE) {
    scan.problem(`the head's tree border is not ${ids.length} hashes of a tree of size ${size}`);
    return;
  }
  ids.forEach((id, i) => {
    const row = stored.get(nodeKey(id));
    if (row !== undefined && !row.hash.equals(border.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE)))
      scan.problem(`the head's tree border hash ${i} is not the stored ${describe(id)}`);
  });
}
