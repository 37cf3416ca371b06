/**
 * Property tests (fast-check) over random sizes, against the naive RFC 9162 definitions of
 * test/reference.ts: group appends, proofs in trees up to 4096 leaves, tampered proofs, and —
 * in a tree whose inputs are all equal, so any size is computable — sizes up to 2^53 − 1.
 */
import * as fc from 'fast-check';
import {
  appendLeaves,
  buildProof,
  consistencyPlan,
  EMPTY_TREE,
  inclusionPlan,
  leafHash,
  MemoryNodeStore,
  nodeHash,
  ProofError,
  verifyConsistency,
  verifyInclusion,
  type ProofPlan,
  type TreeState,
} from '../src/index.js';
import { thrownBy } from './refusal.js';
import {
  makeLeaves,
  pathRanges,
  proofRanges,
  RefTree,
  refLeafHash,
  refRootFromPath,
  refVerifyConsistency,
} from './reference.js';

const MAX = 4096;
const leaves = makeLeaves(MAX);
const ref = new RefTree(leaves);
const store = new MemoryNodeStore();
store.add(appendLeaves(EMPTY_TREE, leaves.map(leafHash)).nodes);
const root = (n: number) => ref.mth(0, n);
const build = (plan: ProofPlan) => buildProof(plan, store.read(plan.nodes));
const same = (a: readonly Buffer[], b: readonly Buffer[]) =>
  a.length === b.length && a.every((h, i) => h.equals(b[i]!));

const sizeAndIndex = fc
  .integer({ min: 1, max: MAX })
  .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 })));
const sizePair = fc
  .tuple(fc.integer({ min: 1, max: MAX }), fc.integer({ min: 1, max: MAX }))
  .map(([a, b]) => (a <= b ? [a, b] : [b, a]) as [number, number]);

describe('appendLeaves in groups', () => {
  it('leaves the same nodes, state and roots however the leaves are grouped', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 30 }), (groups) => {
        let state: TreeState = EMPTY_TREE;
        const grouped = new MemoryNodeStore();
        let at = 0;
        for (const size of groups) {
          const step = appendLeaves(state, leaves.slice(at, at + size).map(leafHash));
          grouped.add(step.nodes);
          at += size;
          expect(step.root.equals(root(at))).toBe(true);
          state = step.state;
        }
        const single = appendLeaves(EMPTY_TREE, leaves.slice(0, at).map(leafHash));
        expect(grouped.count).toBe(single.nodes.length);
        expect(
          same(
            grouped.read(single.nodes),
            single.nodes.map((node) => node.hash),
          ),
        ).toBe(true);
        expect(state.size).toBe(at);
        expect(
          same(
            state.border.map((h) => Buffer.from(h)),
            single.state.border.map((h) => Buffer.from(h)),
          ),
        ).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('proofs in trees of random size up to 4096', () => {
  it('inclusion proofs equal PATH and verify', () => {
    fc.assert(
      fc.property(sizeAndIndex, ([n, m]) => {
        const proof = build(inclusionPlan(m, n));
        expect(same(proof, ref.path(m, 0, n))).toBe(true);
        const leaf = refLeafHash(leaves[m]!);
        expect(refRootFromPath(m, n, leaf, proof)?.equals(root(n))).toBe(true);
        verifyInclusion(leaf, m, n, proof, root(n));
      }),
      { numRuns: 500 },
    );
  });

  it('consistency proofs equal PROOF and verify', () => {
    fc.assert(
      fc.property(sizePair, ([m, n]) => {
        const proof = build(consistencyPlan(m, n));
        expect(same(proof, ref.proof(m, n))).toBe(true);
        expect(refVerifyConsistency(m, n, root(m), root(n), proof)).toBe(true);
        verifyConsistency(m, n, root(m), root(n), proof);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses an inclusion proof with a flipped bit, a wrong index, or a hash too few or too many', () => {
    fc.assert(
      fc.property(sizeAndIndex, fc.nat(), fc.nat(255), ([n, m], pick, bit) => {
        const proof = build(inclusionPlan(m, n));
        const leaf = leafHash(leaves[m]!);
        const tampered: Buffer[][] = [[...proof, proof[0] ?? root(n)], proof.slice(1)];
        if (proof.length > 0) {
          const flipped = proof.map((h) => Buffer.from(h));
          flipped[pick % proof.length]![bit % 32]! ^= 1 << (bit % 8);
          tampered.push(flipped);
        }
        for (const bad of tampered) {
          if (bad.length === proof.length && same(bad, proof)) continue;
          expect(thrownBy(() => verifyInclusion(leaf, m, n, bad, root(n)))).toBeInstanceOf(
            ProofError,
          );
        }
        if (n > 1) {
          const other = (m + 1 + (pick % (n - 1))) % n;
          expect(thrownBy(() => verifyInclusion(leaf, other, n, proof, root(n)))).toBeInstanceOf(
            ProofError,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a consistency proof with a flipped bit, or between roots it does not join', () => {
    fc.assert(
      fc.property(sizePair, fc.nat(), fc.nat(255), ([m, n], pick, bit) => {
        fc.pre(m < n);
        const proof = build(consistencyPlan(m, n));
        const flipped = proof.map((h) => Buffer.from(h));
        flipped[pick % proof.length]![bit % 32]! ^= 1 << (bit % 8);
        const fails = [
          () => verifyConsistency(m, n, root(m), root(n), flipped),
          () => verifyConsistency(m, n, root(n), root(m), proof),
          () => verifyConsistency(m, n, root(m), root(n), proof.slice(0, -1)),
          () => verifyConsistency(m, n, nodeHash(root(m), root(m)), root(n), proof),
        ];
        for (const fail of fails) expect(thrownBy(fail)).toBeInstanceOf(ProofError);
      }),
      { numRuns: 300 },
    );
  });
});

describe('sizes up to 2^53 − 1', () => {
  const uniform = Buffer.from('same');
  const uref = new RefTree({ uniform });
  // Every perfect subtree of level L of this tree has one hash, so the getter needs no storage.
  const perfect: Buffer[] = [leafHash(uniform)];
  for (let l = 1; l <= 53; l++) perfect.push(nodeHash(perfect[l - 1]!, perfect[l - 1]!));
  const uniformBuild = (plan: ProofPlan) =>
    buildProof(
      plan,
      plan.nodes.map((id) => perfect[id.level]!),
    );
  // A plan's proof hashes as the leaf ranges they cover, to compare with the naive recursion.
  const rangesOf = (plan: ProofPlan) =>
    plan.hashes.map((positions) => {
      const first = plan.nodes[positions[0]!]!;
      const last = plan.nodes[positions[positions.length - 1]!]!;
      return [first.index * 2 ** first.level, (last.index + 1) * 2 ** last.level];
    });
  const big = fc.oneof(
    fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    fc.integer({ min: 1, max: 30 }).map((k) => 2 ** k + 31),
    fc.integer({ min: 31, max: 53 }).map((k) => 2 ** k - 1),
  );

  it('inclusion proofs cover PATH’s ranges and verify, past 32-bit arithmetic', () => {
    fc.assert(
      fc.property(big, fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const m = Math.min(n - 1, Math.floor(f * n));
        const plan = inclusionPlan(m, n);
        expect(rangesOf(plan)).toEqual(pathRanges(m, 0, n));
        const proof = uniformBuild(plan);
        expect(same(proof, uref.path(m, 0, n))).toBe(true);
        verifyInclusion(leafHash(uniform), m, n, proof, uref.mth(0, n));
      }),
      { numRuns: 300 },
    );
  });

  it('consistency proofs cover PROOF’s ranges and verify, past 32-bit arithmetic', () => {
    fc.assert(
      fc.property(big, fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const m = Math.max(1, Math.min(n, Math.ceil(f * n)));
        const plan = consistencyPlan(m, n);
        expect(rangesOf(plan)).toEqual(proofRanges(m, 0, n));
        const proof = uniformBuild(plan);
        expect(same(proof, uref.proof(m, n))).toBe(true);
        verifyConsistency(m, n, uref.mth(0, m), uref.mth(0, n), proof);
      }),
      { numRuns: 300 },
    );
  });
});
