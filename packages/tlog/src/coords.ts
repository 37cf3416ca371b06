import { TreeRangeError } from './errors.js';

/**
 * A perfect subtree of the log's Merkle tree: `level` 0 is a leaf, level L covers the 2^L leaves
 * [index·2^L, (index+1)·2^L). Such a node never changes once its last leaf is appended, so it is
 * stored once (RFC 9162 §2.1.1: MTH of a power-of-two-sized, aligned range). Any root, inclusion
 * proof or consistency proof of any size is a function of these nodes alone.
 */
export interface NodeId {
  readonly level: number;
  readonly index: number;
}

/**
 * Tree sizes and indexes are JavaScript safe integers (≤ 2^53 − 1); every computation below uses
 * arithmetic, never 32-bit bitwise operators, so sizes past 2^31 stay exact.
 */
export const MAX_TREE_SIZE = Number.MAX_SAFE_INTEGER;

/** A map key for a node: `"<level>/<index>"`. */
export function nodeKey(id: NodeId): string {
  return `${id.level}/${id.index}`;
}

/** True when `n` is odd (RFC 9162's "LSB(n) is set"). */
export function isOdd(n: number): boolean {
  return n % 2 === 1;
}

/** `n` shifted right by one bit (RFC 9162's "right-shift"). */
export function half(n: number): number {
  return Math.floor(n / 2);
}

/** True when `n` is 2^k for some k ≥ 0. */
export function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  while (n % 2 === 0) n /= 2;
  return n === 1;
}

/**
 * The largest power of two strictly below `n` (RFC 9162 §2.1.1's k, with k < n ≤ 2k).
 * @param n an integer ≥ 2
 */
export function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * Checks a tree size.
 * @param what names the value in the error ("tree size", "old tree size")
 * @throws TreeRangeError unless `size` is an integer in 0…MAX_TREE_SIZE
 */
export function checkSize(size: number, what = 'tree size'): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new TreeRangeError(`${what} must be an integer from 0 to 2^53 − 1, got ${size}`);
  }
}

/**
 * Checks a leaf index against a tree size.
 * @throws TreeRangeError unless `size` is a tree size and 0 ≤ index < size
 */
export function checkIndex(index: number, size: number): void {
  checkSize(size);
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new TreeRangeError(`leaf index must be a non-negative integer, got ${index}`);
  }
  if (index >= size) {
    throw new TreeRangeError(`leaf index ${index} is not below tree size ${size}`);
  }
}

/**
 * The perfect subtrees, left to right, whose right fold (`h₀ ⊕ (h₁ ⊕ (… ⊕ hₖ))` with ⊕ the
 * interior-node hash) is MTH(D[start:end]) (RFC 9162 §2.1.1: split at the largest power of two
 * below the length, recursively; the left part is perfect each time). `start` must be a
 * multiple of a power of two ≥ end − start, which holds for every range that PATH and PROOF
 * (§2.1.3.1, §2.1.4.1) and the root of a size name.
 * @returns one node per set bit of end − start, highest level first (empty for an empty range)
 */
export function rangeNodes(start: number, end: number): NodeId[] {
  const nodes: NodeId[] = [];
  let top = 1;
  let level = 0;
  while (top * 2 <= end - start) {
    top *= 2;
    level += 1;
  }
  let pos = start;
  for (let width = top; pos < end; width /= 2, level -= 1) {
    if (end - pos >= width) {
      // An unaligned start would name a node that is not a perfect subtree: a caller bug.
      if (pos % width !== 0) throw new Error(`range [${start}, ${end}) is not aligned`);
      nodes.push({ level, index: pos / width });
      pos += width;
    }
  }
  return nodes;
}

/**
 * The compact range of a tree of `size` leaves: the perfect subtrees covering [0, size), left to
 * right (one per set bit of `size`). Their hashes are all an append needs, and their fold is the
 * root (transparency-dev/merkle docs/compact_ranges.md).
 */
export function borderIds(size: number): NodeId[] {
  checkSize(size);
  return rangeNodes(0, size);
}
