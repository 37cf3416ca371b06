import { expectRefusal } from '../test/refusal.js';
import { appendLeaves, EMPTY_TREE } from './append.js';
import { ConsistencyProofError, InclusionProofError, type ProofError } from './errors.js';
import { EMPTY_ROOT, leafHash } from './hash.js';
import { MemoryNodeStore } from './memory-store.js';
import { buildProof, consistencyPlan, inclusionPlan } from './proofs.js';
import { rootFromInclusionProof, verifyConsistency, verifyInclusion } from './verify.js';

const leaves = Array.from({ length: 8 }, (_, i) => leafHash(Buffer.from(`leaf-${i}`)));
const store = new MemoryNodeStore();
const roots = [EMPTY_ROOT];
let state = EMPTY_TREE;
for (const leaf of leaves) {
  const step = appendLeaves(state, [leaf]);
  store.add(step.nodes);
  roots.push(step.root);
  state = step.state;
}
const b64 = (h: Buffer) => h.toString('base64');
const inclusion = (i: number, n: number) =>
  buildProof(inclusionPlan(i, n), store.read(inclusionPlan(i, n).nodes));
const consistency = (m: number, n: number) =>
  buildProof(consistencyPlan(m, n), store.read(consistencyPlan(m, n).nodes));

function refusal(
  fn: () => void,
  Class: typeof InclusionProofError | typeof ConsistencyProofError,
  reason: string,
  message: string,
) {
  const error = expectRefusal(fn, Class, message) as ProofError;
  expect(error.reason).toBe(reason);
}

describe('verifyInclusion (RFC 9162 §2.1.3.2) refusals name the check that failed', () => {
  it('returns the root the proof leads to', () => {
    expect(rootFromInclusionProof(leaves[5]!, 5, 8, inclusion(5, 8)).equals(roots[8]!)).toBe(true);
  });

  it.each([
    [8, 8, 'leaf index 8 is not below tree size 8'],
    [-1, 8, 'leaf index -1 is not below tree size 8'],
    [0, 0, 'leaf index 0 is not below tree size 0'],
    [0, 2 ** 53, 'leaf index 0 is not below tree size 9007199254740992'],
  ])('range: index %i, size %i', (index, size, message) => {
    refusal(
      () => verifyInclusion(leaves[0]!, index, size, [], roots[1]!),
      InclusionProofError,
      'range',
      message,
    );
  });

  it('length: too many or too few hashes', () => {
    const proof = inclusion(2, 7);
    refusal(
      () => verifyInclusion(leaves[2]!, 2, 7, [...proof, roots[7]!], roots[7]!),
      InclusionProofError,
      'length',
      'inclusion proof has 4 hashes; index 2 in a tree of size 7 needs 3',
    );
    refusal(
      () => verifyInclusion(leaves[2]!, 2, 7, proof.slice(1), roots[7]!),
      InclusionProofError,
      'length',
      'inclusion proof has 2 hashes; index 2 in a tree of size 7 needs 3',
    );
  });

  it('hash-size: a proof hash, the leaf or the root not of 32 bytes', () => {
    refusal(
      () => verifyInclusion(leaves[0]!, 0, 2, [Buffer.alloc(31)], roots[2]!),
      InclusionProofError,
      'hash-size',
      'inclusion proof hash 0 is 31 bytes, not 32',
    );
    refusal(
      () => verifyInclusion(Buffer.from('x'), 0, 1, [], roots[1]!),
      InclusionProofError,
      'hash-size',
      'leaf hash 0 is 1 bytes, not 32',
    );
    refusal(
      () => verifyInclusion(leaves[0]!, 0, 1, [], Buffer.alloc(0)),
      InclusionProofError,
      'hash-size',
      'root hash 0 is 0 bytes, not 32',
    );
  });

  it('root: another leaf, or another tree', () => {
    const proof = inclusion(3, 8);
    const computed = rootFromInclusionProof(leaves[4]!, 3, 8, proof);
    refusal(
      () => verifyInclusion(leaves[4]!, 3, 8, proof, roots[8]!),
      InclusionProofError,
      'root',
      `inclusion proof for index 3 computes root ${b64(computed)}, not the tree's root ${b64(roots[8]!)}`,
    );
  });
});

describe('verifyConsistency (RFC 9162 §2.1.4.2) refusals name the check that failed', () => {
  it('accepts the trivial cases: from 0, and to the same size', () => {
    expect(() => verifyConsistency(0, 5, EMPTY_ROOT, roots[5]!, [])).not.toThrow();
    expect(() => verifyConsistency(5, 5, roots[5]!, roots[5]!, [])).not.toThrow();
    expect(() => verifyConsistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])).not.toThrow();
  });

  it.each([
    [6, 5, 'old tree size 6 is larger than new tree size 5: a log never shrinks'],
    [-1, 5, 'tree sizes must be integers from 0 to 2^53 − 1, got -1 and 5'],
    [1, 2 ** 53, 'tree sizes must be integers from 0 to 2^53 − 1, got 1 and 9007199254740992'],
  ])('range: %i → %i', (m, n, message) => {
    refusal(
      () => verifyConsistency(m, n, roots[1]!, roots[5]!, []),
      ConsistencyProofError,
      'range',
      message,
    );
  });

  it('length: a path of the wrong length, including a non-empty path where none belongs', () => {
    const proof = consistency(3, 7);
    refusal(
      () => verifyConsistency(3, 7, roots[3]!, roots[7]!, proof.slice(1)),
      ConsistencyProofError,
      'length',
      'consistency proof has 3 hashes; from size 3 to 7 it needs 4',
    );
    refusal(
      () => verifyConsistency(3, 7, roots[3]!, roots[7]!, []),
      ConsistencyProofError,
      'length',
      'consistency proof has 0 hashes; from size 3 to 7 it needs 4',
    );
    refusal(
      () => verifyConsistency(4, 4, roots[4]!, roots[4]!, [roots[4]!]),
      ConsistencyProofError,
      'length',
      'consistency proof from size 4 to 4 must be empty, got 1 hashes',
    );
  });

  it('old-root: a saved checkpoint whose history was rewritten', () => {
    const proof = consistency(3, 7);
    const forged = leafHash(Buffer.from('forged'));
    refusal(
      () => verifyConsistency(3, 7, forged, roots[7]!, proof),
      ConsistencyProofError,
      'old-root',
      `consistency proof from size 3 to 7 computes old root ${b64(roots[3]!)}, not ${b64(forged)}`,
    );
    refusal(
      () => verifyConsistency(0, 7, roots[1]!, roots[7]!, []),
      ConsistencyProofError,
      'old-root',
      'the root of a tree of size 0 must be SHA-256 of the empty string',
    );
  });

  it('new-root: a new tree that does not extend the old one', () => {
    const proof = consistency(4, 6);
    refusal(
      () => verifyConsistency(4, 6, roots[4]!, roots[7]!, proof),
      ConsistencyProofError,
      'new-root',
      `consistency proof from size 4 to 6 computes new root ${b64(roots[6]!)}, not ${b64(roots[7]!)}`,
    );
    refusal(
      () => verifyConsistency(5, 5, roots[5]!, roots[6]!, []),
      ConsistencyProofError,
      'new-root',
      'two trees of size 5 have different roots',
    );
  });
});
