/**
 * The 8-leaf reference tree of transparency-dev/merkle proof/verify_test.go (data in
 * test/vectors.ts): published roots and proofs are built and verified, and the probes of its
 * corruptInclusionProof / corruptConsistencyProof are refused.
 */
import {
  appendLeaves,
  consistencyProof,
  EMPTY_TREE,
  inclusionProof,
  leafHash,
  MemoryNodeStore,
  ProofError,
  rootAt,
  verifyConsistency,
  verifyInclusion,
} from '../src/index.js';
import { thrownBy } from './refusal.js';
import { CONSISTENCY, hex, INCLUSION, LEAVES, ROOTS } from './vectors.js';

function referenceStore(): MemoryNodeStore {
  const store = new MemoryNodeStore();
  store.add(appendLeaves(EMPTY_TREE, LEAVES.map(leafHash)).nodes);
  return store;
}

const hexes = (hashes: Buffer[]) => hashes.map((h) => h.toString('hex'));

describe('the 8-leaf reference tree (transparency-dev/merkle proof/verify_test.go)', () => {
  it('has the published root at every size 1…8, both by appending and from stored nodes', async () => {
    const store = referenceStore();
    let state = EMPTY_TREE;
    for (let size = 1; size <= 8; size++) {
      const step = appendLeaves(state, [leafHash(LEAVES[size - 1]!)]);
      state = step.state;
      expect(step.root.toString('hex')).toBe(ROOTS[size - 1]!.toString('hex'));
      expect((await rootAt(size, store.getNodes)).toString('hex')).toBe(
        ROOTS[size - 1]!.toString('hex'),
      );
    }
  });

  it.each(INCLUSION)(
    'builds and verifies the published inclusion proof of leaf #%i in size %i',
    async (leaf, size, want) => {
      const proof = await inclusionProof(leaf - 1, size, referenceStore().getNodes);
      expect(hexes(proof)).toEqual(want);
      expect(() =>
        verifyInclusion(leafHash(LEAVES[leaf - 1]!), leaf - 1, size, proof, ROOTS[size - 1]!),
      ).not.toThrow();
    },
  );

  it.each(CONSISTENCY)(
    'builds and verifies the published consistency proof from %i to %i',
    async (m, n, want) => {
      const proof = await consistencyProof(m, n, referenceStore().getNodes);
      expect(hexes(proof)).toEqual(want);
      expect(() => verifyConsistency(m, n, ROOTS[m - 1]!, ROOTS[n - 1]!, proof)).not.toThrow();
    },
  );
});

// The probes of verify_test.go's corruptInclusionProof / corruptConsistencyProof, each of which
// a verifier must refuse.
describe('tampered published proofs are refused (transparency-dev/merkle corrupt* probes)', () => {
  const someHash = hex('abacaba000000000000000000000000000000000000000000060061e00123456');
  const emptyRoot = hex('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

  it.each(INCLUSION.filter(([, size]) => size > 1))(
    'inclusion of leaf #%i in size %i',
    (leaf, size, want) => {
      const index = leaf - 1;
      const proof = want.map(hex);
      const root = ROOTS[size - 1]!;
      const hash = leafHash(LEAVES[index]!);
      const probes: [number, number, Buffer, Buffer, Buffer[]][] = [
        [index - 1, size, hash, root, proof],
        [index + 1, size, hash, root, proof],
        [index ^ 2, size, hash, root, proof],
        [index, size * 2, hash, root, proof],
        [index, Math.floor(size / 2), hash, root, proof],
        [index, size, Buffer.from('WrongLeaf'), root, proof],
        [index, size, hash, emptyRoot, proof],
        [index, size, hash, someHash, proof],
        [index, size, hash, root, [...proof, Buffer.alloc(0)]],
        [index, size, hash, root, [...proof, root]],
        [index, size, hash, root, [Buffer.alloc(0), ...proof]],
        [index, size, hash, root, [root, ...proof]],
        [index, size, hash, root, proof.slice(0, -1)],
        ...proof.map((_, i): [number, number, Buffer, Buffer, Buffer[]] => {
          const bad = proof.map((h) => Buffer.from(h));
          bad[i]![0]! ^= 8;
          return [index, size, hash, root, bad];
        }),
      ];
      if (proof.length > 1)
        probes.push([index, size, hash, root, [proof[0]!, someHash, ...proof.slice(1)]]);
      for (const [i, n, h, r, p] of probes) {
        expect(thrownBy(() => verifyInclusion(h, i, n, p, r))).toBeInstanceOf(ProofError);
      }
    },
  );

  it.each(CONSISTENCY.filter(([m, n]) => m < n))('consistency from %i to %i', (m, n, want) => {
    const proof = want.map(hex);
    const root1 = ROOTS[m - 1]!;
    const root2 = ROOTS[n - 1]!;
    const probes: [number, number, Buffer, Buffer, Buffer[]][] = [
      [m - 1, n, root1, root2, proof],
      [m + 1, n, root1, root2, proof],
      [m ^ 2, n, root1, root2, proof],
      [m, n * 2, root1, root2, proof],
      [m, Math.floor(n / 2), root1, root2, proof],
      [m, n, Buffer.from('WrongRoot'), root2, proof],
      [m, n, root1, Buffer.from('WrongRoot'), proof],
      [m, n, root2, root1, proof],
      [m, n, root1, root2, []],
      [m, n, root1, root2, [...proof, Buffer.alloc(0)]],
      [m, n, root1, root2, [...proof, root1]],
      [m, n, root1, root2, [...proof, root2]],
      [m, n, root1, root2, [Buffer.alloc(0), ...proof]],
      [m, n, root1, root2, [root1, ...proof]],
      [m, n, root1, root2, [root2, ...proof]],
      [m, n, root1, root2, [proof[0]!, ...proof]],
      [m, n, root1, root2, proof.slice(0, -1)],
      ...proof.map((_, i): [number, number, Buffer, Buffer, Buffer[]] => {
        const bad = proof.map((h) => Buffer.from(h));
        bad[i]![0]! ^= 16;
        return [m, n, root1, root2, bad];
      }),
    ];
    for (const [a, b, r1, r2, p] of probes) {
      expect(thrownBy(() => verifyConsistency(a, b, r1, r2, p))).toBeInstanceOf(ProofError);
    }
  });
});
