import { borderIds, checkSize, MAX_TREE_SIZE, type NodeId } from './coords.js';
import { TreeStateError } from './errors.js';
import { checkHashSize, copyHash, EMPTY_ROOT, nodeHash } from './hash.js';

/**
 * What an append needs to know of the tree: its size and the hashes of its compact range, the
 * perfect subtrees `borderIds(size)` left to right (one per set bit of size, ≤ 53 hashes).
 * The ledger can keep it in its head row or read it from the stored nodes (borderIds names them).
 */
export interface TreeState {
  /** number of leaves */
  readonly size: number;
  /** 32-byte hashes of borderIds(size), left to right */
  readonly border: readonly Uint8Array[];
}

/** One perfect-subtree node to store: (level, index) is its key, `hash` its 32-byte value. */
export interface StoredNode extends NodeId {
  readonly hash: Buffer;
}

/** The outcome of one append of a group of leaves. */
export interface AppendResult {
  /** every node completed by the append, leaves included, in completion order (each written once) */
  readonly nodes: StoredNode[];
  /** the tree after the append */
  readonly state: TreeState;
  /** MTH of the tree after the append (RFC 9162 §2.1.1) */
  readonly root: Buffer;
}

/** The state of the empty tree (size 0, no border; its root is EMPTY_ROOT). */
export const EMPTY_TREE: TreeState = { size: 0, border: [] };

/**
 * Folds hashes of consecutive perfect subtrees, left to right and of decreasing size, into the
 * hash of their union: h₀ ⊕ (h₁ ⊕ (… ⊕ hₖ)) (RFC 9162 §2.1.1, the split at the largest power of
 * two taken repeatedly). An empty list folds to EMPTY_ROOT (MTH({})).
 */
export function foldRight(hashes: readonly Uint8Array[]): Buffer {
  if (hashes.length === 0) return copyHash(EMPTY_ROOT);
  let acc = copyHash(hashes[hashes.length - 1]!);
  for (let i = hashes.length - 2; i >= 0; i--) acc = nodeHash(hashes[i]!, acc);
  return acc;
}

/**
 * Checks that a tree state is self-consistent.
 * @throws TreeStateError when the size is not a tree size, the border does not have one hash per
 *   set bit of the size, or a hash is not 32 bytes
 */
export function checkTreeState(state: TreeState): void {
  try {
    checkSize(state.size);
  } catch (error) {
    throw new TreeStateError((error as Error).message);
  }
  const want = borderIds(state.size).length;
  if (state.border.length !== want) {
    throw new TreeStateError(
      `a tree of size ${state.size} has ${want} compact range hashes, got ${state.border.length}`,
    );
  }
  state.border.forEach((hash, i) => checkHashSize(hash, `compact range hash ${i}`));
}

/**
 * The root of a tree from its state (RFC 9162 §2.1.1).
 * @throws TreeStateError for an inconsistent state
 */
export function rootOfState(state: TreeState): Buffer {
  checkTreeState(state);
  return foldRight(state.border);
}

/**
 * Appends a group of leaves at once: extends the compact range leaf by leaf and returns every
 * perfect subtree the group completes. Appending leaf n completes its leaf node and one parent
 * per trailing 1-bit of n (amortised 2 nodes per leaf, at most log₂(n) + 2), so a group costs
 * O(k + log n) hashes and the rows it returns are written with the entries, in one transaction.
 * Pure: the input state is not modified.
 * @param state the tree before the append
 * @param leafHashes the new leaves' hashes (leafHash of each entry's bytes), in log order
 * @throws TreeStateError for an inconsistent state, a leaf hash not of 32 bytes, or a size past 2^53 − 1
 */
export function appendLeaves(state: TreeState, leafHashes: readonly Uint8Array[]): AppendResult {
  checkTreeState(state);
  leafHashes.forEach((hash, i) => checkHashSize(hash, `leaf hash ${i}`));
  if (leafHashes.length > MAX_TREE_SIZE - state.size) {
    throw new TreeStateError(`appending ${leafHashes.length} leaves would pass 2^53 − 1`);
  }
  // The border's hashes are only read, never written, so they are not copied.
  const stack: { level: number; index: number; hash: Uint8Array }[] = borderIds(state.size).map(
    (id, i) => ({ ...id, hash: state.border[i]! }),
  );
  const nodes: StoredNode[] = [];
  leafHashes.forEach((hash, i) => {
    let node: StoredNode = { level: 0, index: state.size + i, hash: copyHash(hash) };
    nodes.push(node);
    // Two perfect siblings of one level merge into their parent, as a binary counter carries.
    while (stack.length > 0 && stack[stack.length - 1]!.level === node.level) {
      const left = stack.pop()!;
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(left.hash, node.hash) };
      nodes.push(node);
    }
    stack.push(node);
  });
  const border = stack.map((node) => node.hash);
  return {
    nodes,
    state: { size: state.size + leafHashes.length, border },
    root: foldRight(border),
  };
}
