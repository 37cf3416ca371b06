/**
 * Every tree size 1…300: every inclusion proof and every consistency proof the package builds
 * from its stored nodes equals the naive RFC 9162 PATH/PROOF of test/reference.ts, is accepted by
 * the reference's recursive verifiers and by the package's verifiers, and every root equals MTH.
 */
import {
  appendLeaves,
  buildProof,
  consistencyPlan,
  EMPTY_TREE,
  inclusionPlan,
  leafHash,
  MemoryNodeStore,
  rootPlan,
  verifyConsistency,
  verifyInclusion,
  type TreeState,
} from '../src/index.js';
import {
  makeLeaves,
  RefTree,
  refLeafHash,
  refRootFromPath,
  refVerifyConsistency,
} from './reference.js';

const MAX = 300;
const leaves = makeLeaves(MAX);
const ref = new RefTree(leaves);
const store = new MemoryNodeStore();
const roots: Buffer[] = [];
let state: TreeState = EMPTY_TREE;
for (const leaf of leaves) {
  const step = appendLeaves(state, [leafHash(leaf)]);
  store.add(step.nodes);
  roots.push(step.root);
  state = step.state;
}
const rootOf = (size: number) => roots[size - 1]!;
const hexOf = (hashes: readonly Buffer[]) => hashes.map((h) => h.toString('hex')).join(',');

describe('every size 1…300 against the naive RFC 9162 definitions', () => {
  it('computes MTH(D[0:n]) for every n, appending and from stored nodes', () => {
    for (let n = 1; n <= MAX; n++) {
      const want = ref.mth(0, n).toString('hex');
      expect(rootOf(n).toString('hex')).toBe(want);
      const plan = rootPlan(n);
      expect(buildProof(plan, store.read(plan.nodes))[0]!.toString('hex')).toBe(want);
    }
  });

  it('stores each perfect subtree once: 2n − popcount(n) nodes for n leaves', () => {
    const popcount = (n: number) => n.toString(2).replace(/0/g, '').length;
    expect(store.count).toBe(2 * MAX - popcount(MAX));
  });

  // Mismatches are collected and asserted once: 45 150 cases × per-hash expects would cost minutes.
  it('builds PATH(m, D[n]) for every 0 ≤ m < n ≤ 300, and both verifiers accept it', () => {
    const failures: string[] = [];
    let checked = 0;
    for (let n = 1; n <= MAX; n++) {
      for (let m = 0; m < n; m++) {
        const plan = inclusionPlan(m, n);
        const proof = buildProof(plan, store.read(plan.nodes));
        if (hexOf(proof) !== hexOf(ref.path(m, 0, n))) failures.push(`PATH(${m}, ${n}) differs`);
        const leaf = refLeafHash(leaves[m]!);
        if (refRootFromPath(m, n, leaf, proof)?.equals(rootOf(n)) !== true) {
          failures.push(`reference verifier refuses inclusion ${m} in ${n}`);
        }
        try {
          verifyInclusion(leaf, m, n, proof, rootOf(n));
        } catch (error) {
          failures.push(`verifyInclusion ${m} in ${n}: ${(error as Error).message}`);
        }
        checked += 1;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe((MAX * (MAX + 1)) / 2);
  });

  it('builds PROOF(m, D[n]) for every 1 ≤ m ≤ n ≤ 300, and both verifiers accept it', () => {
    const failures: string[] = [];
    let checked = 0;
    for (let n = 1; n <= MAX; n++) {
      for (let m = 1; m <= n; m++) {
        const plan = consistencyPlan(m, n);
        const proof = buildProof(plan, store.read(plan.nodes));
        if (hexOf(proof) !== hexOf(ref.proof(m, n))) failures.push(`PROOF(${m}, ${n}) differs`);
        if (!refVerifyConsistency(m, n, rootOf(m), rootOf(n), proof)) {
          failures.push(`reference verifier refuses consistency ${m} → ${n}`);
        }
        try {
          verifyConsistency(m, n, rootOf(m), rootOf(n), proof);
        } catch (error) {
          failures.push(`verifyConsistency ${m} → ${n}: ${(error as Error).message}`);
        }
        checked += 1;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBe((MAX * (MAX + 1)) / 2);
  });
});
