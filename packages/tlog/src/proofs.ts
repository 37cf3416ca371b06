import { foldRight } from './append.js';
import {
  borderIds,
  checkIndex,
  checkSize,
  largestPowerOfTwoBelow,
  nodeKey,
  rangeNodes,
  type NodeId,
} from './coords.js';
import { NodeStoreError, TreeRangeError } from './errors.js';
import { copyHash, EMPTY_ROOT, HASH_SIZE } from './hash.js';

/**
 * Which stored nodes a proof (or a root) is made of, so the caller reads them all in one batch
 * before any hashing: at most 2·53 nodes for sizes below 2^53.
 */
export interface ProofPlan {
  /** the distinct perfect-subtree nodes to read, in first-use order */
  readonly nodes: readonly NodeId[];
  /**
   * one entry per output hash, in RFC 9162 order (for proofs: nearest the leaf first); each is the
   * list of positions in `nodes` whose right fold (foldRight) is that hash — one position when the
   * subtree is perfect, several for a right-edge subtree of a size that is not a power of two
   */
  readonly hashes: readonly (readonly number[])[];
}

/**
 * Reads stored node hashes in one batch: answers one 32-byte hash per id, in the order asked.
 * The ledger implements it as one `SELECT … WHERE (level, index) IN (…)` over its tree table.
 */
export type GetNodes = (ids: readonly NodeId[]) => Promise<readonly Uint8Array[]>;

/** A plan over leaf ranges [start, end): each range becomes one output hash. */
function planOf(ranges: readonly (readonly [number, number])[]): ProofPlan {
  const nodes: NodeId[] = [];
  const position = new Map<string, number>();
  const hashes = ranges.map(([start, end]) =>
    rangeNodes(start, end).map((id) => {
      const key = nodeKey(id);
      let at = position.get(key);
      if (at === undefined) {
        at = nodes.length;
        position.set(key, at);
        nodes.push(id);
      }
      return at;
    }),
  );
  return { nodes, hashes };
}

/**
 * The nodes of the audit path PATH(index, D[size]) (RFC 9162 §2.1.3.1): walking down from the
 * root, at each split k (the largest power of two below the subtree's size) the sibling of the
 * side holding the leaf is one proof hash; the list is then put leaf side first.
 * @throws TreeRangeError unless 0 ≤ index < size ≤ 2^53 − 1
 */
export function inclusionPlan(index: number, size: number): ProofPlan {
  checkIndex(index, size);
  const ranges: [number, number][] = [];
  let lo = 0;
  let n = size;
  let m = index;
  while (n > 1) {
    const k = largestPowerOfTwoBelow(n);
    if (m < k) {
      ranges.push([lo + k, lo + n]);
      n = k;
    } else {
      ranges.push([lo, lo + k]);
      lo += k;
      m -= k;
      n -= k;
    }
  }
  return planOf(ranges.reverse());
}

/**
 * The nodes of the consistency proof PROOF(m, D[n]) = SUBPROOF(m, D[n], true) (RFC 9162
 * §2.1.4.1). Sizes 0 < m < n give a non-empty proof; m = 0 and m = n give the empty proof (every
 * tree extends the empty tree and itself; §2.1.4.2 verifies those without a path).
 * @throws TreeRangeError unless 0 ≤ m ≤ n ≤ 2^53 − 1
 */
export function consistencyPlan(m: number, n: number): ProofPlan {
  checkSize(m, 'old tree size');
  checkSize(n, 'new tree size');
  if (m > n) {
    throw new TreeRangeError(`old tree size ${m} is larger than new tree size ${n}`);
  }
  const ranges: [number, number][] = [];
  if (m === 0 || m === n) return planOf(ranges);
  let lo = 0;
  let len = n;
  let whole = true; // SUBPROOF's b: the old tree's root is still the subtree being proven
  while (m !== len) {
    const k = largestPowerOfTwoBelow(len);
    if (m <= k) {
      ranges.push([lo + k, lo + len]);
      len = k;
    } else {
      ranges.push([lo, lo + k]);
      lo += k;
      m -= k;
      len -= k;
      whole = false;
    }
  }
  if (!whole) ranges.push([lo, lo + len]);
  return planOf(ranges.reverse());
}

/** The nodes whose fold is the root of a tree of `size` leaves: its compact range (one output hash, none for size 0). */
export function rootPlan(size: number): ProofPlan {
  const nodes = borderIds(size);
  return { nodes, hashes: size === 0 ? [] : [nodes.map((_, i) => i)] };
}

/**
 * Turns a plan and the hashes read for it into the output hashes (pure, O(plan) hashing).
 * @param fetched one 32-byte hash per `plan.nodes` entry, in that order
 * @throws NodeStoreError when the count or a width is wrong
 */
export function buildProof(plan: ProofPlan, fetched: readonly Uint8Array[]): Buffer[] {
  if (fetched.length !== plan.nodes.length) {
    throw new NodeStoreError(
      `the node getter answered ${fetched.length} hashes for ${plan.nodes.length} nodes`,
    );
  }
  fetched.forEach((hash, i) => {
    if (!(hash instanceof Uint8Array) || hash.length !== HASH_SIZE) {
      const { level, index } = plan.nodes[i]!;
      const got = hash instanceof Uint8Array ? `${hash.length} bytes` : typeof hash;
      throw new NodeStoreError(
        `the node getter answered ${got} for node (level ${level}, index ${index}), not ${HASH_SIZE} bytes`,
      );
    }
  });
  return plan.hashes.map((positions) => foldRight(positions.map((at) => fetched[at]!)));
}

async function run(plan: ProofPlan, getNodes: GetNodes): Promise<Buffer[]> {
  const fetched = plan.nodes.length === 0 ? [] : await getNodes(plan.nodes);
  return buildProof(plan, fetched);
}

/**
 * The inclusion proof of leaf `index` in the tree of `size` leaves, leaf side first
 * (RFC 9162 §2.1.3.1), from one getNodes call (none for size 1).
 * @throws TreeRangeError for a bad index/size; NodeStoreError for a bad getter answer
 * @internal exported for proofs.spec.ts, test/vectors.spec.ts, bench/tree.bench.mjs
 */
export function inclusionProof(index: number, size: number, getNodes: GetNodes): Promise<Buffer[]> {
  return run(inclusionPlan(index, size), getNodes);
}

/**
 * The consistency proof from size m to size n (RFC 9162 §2.1.4.1), from one getNodes call (none
 * when m = 0 or m = n).
 * @throws TreeRangeError unless 0 ≤ m ≤ n; NodeStoreError for a bad getter answer
 */
export function consistencyProof(m: number, n: number, getNodes: GetNodes): Promise<Buffer[]> {
  return run(consistencyPlan(m, n), getNodes);
}

/**
 * MTH(D[0:size]) of any size the log has had, from one getNodes call (RFC 9162 §2.1.1).
 * @throws TreeRangeError for a bad size; NodeStoreError for a bad getter answer
 */
export async function rootAt(size: number, getNodes: GetNodes): Promise<Buffer> {
  const [root] = await run(rootPlan(size), getNodes);
  return root ?? copyHash(EMPTY_ROOT);
}
