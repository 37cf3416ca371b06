import { half, isOdd, isPowerOfTwo, MAX_TREE_SIZE } from './coords.js';
import { ConsistencyProofError, InclusionProofError, type ProofError } from './errors.js';
import { EMPTY_ROOT, HASH_SIZE, nodeHash, sameHash } from './hash.js';

/**
 * The verifier side (offline, CLI, auditors): RFC 9162 §2.1.3.2 and §2.1.4.2 as written, over
 * the bit positions fn and sn; it shares no code with the proof builders of proofs.ts.
 */

type Make = (reason: ProofError['reason'], message: string) => ProofError;
const inclusionError: Make = (reason, message) => new InclusionProofError(reason, message);
const consistencyError: Make = (reason, message) => new ConsistencyProofError(reason, message);

function isTreeSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0 && n <= MAX_TREE_SIZE;
}

function checkHashes(hashes: readonly Uint8Array[], what: string, make: Make): void {
  hashes.forEach((hash, i) => {
    if (!(hash instanceof Uint8Array) || hash.length !== HASH_SIZE) {
      const got = hash instanceof Uint8Array ? `${hash.length} bytes` : typeof hash;
      throw make('hash-size', `${what} ${i} is ${got}, not ${HASH_SIZE}`);
    }
  });
}

/**
 * The shared loop of §2.1.3.2 step 4 and §2.1.4.2 step 6: one step per path element while sn > 0.
 * A step whose sibling is on the left (LSB(fn) set, or fn = sn) calls `step(true)`; then, if
 * LSB(fn) is not set, fn and sn shift right until LSB(fn) is set or fn is 0; every step ends
 * with one more shift of both.
 * @returns how many path elements the walk consumes
 */
function walk(fn: number, sn: number, step: (leftSibling: boolean, i: number) => void): number {
  let i = 0;
  while (sn > 0) {
    const left = isOdd(fn) || fn === sn;
    step(left, i);
    i += 1;
    if (left && !isOdd(fn)) {
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    }
    fn = half(fn);
    sn = half(sn);
  }
  return i;
}

const countSteps = (fn: number, sn: number): number => walk(fn, sn, () => undefined);

/**
 * The root that an inclusion proof computes for a leaf (RFC 9162 §2.1.3.2 steps 1–4).
 * @param leafHash the leaf's 32-byte hash (leafHash of the entry's bytes)
 * @param index the leaf's index, 0 ≤ index < size
 * @param size the tree size the proof is for
 * @param proof the audit path, leaf side first (RFC 9162 §2.1.3.1)
 * @throws InclusionProofError: `range` for an index not below the size, `hash-size` for a hash
 *   not of 32 bytes, `length` for a path of the wrong length for (index, size)
 * @internal exported for verify.spec.ts, tlog-proof.spec.ts
 */
export function rootFromInclusionProof(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
): Buffer {
  if (!isTreeSize(size) || !Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw inclusionError('range', `leaf index ${index} is not below tree size ${size}`);
  }
  checkHashes([leafHash], 'leaf hash', inclusionError);
  checkHashes(proof, 'inclusion proof hash', inclusionError);
  const want = countSteps(index, size - 1);
  if (proof.length !== want) {
    throw inclusionError(
      'length',
      `inclusion proof has ${proof.length} hashes; index ${index} in a tree of size ${size} needs ${want}`,
    );
  }
  let r: Buffer = Buffer.from(leafHash);
  walk(index, size - 1, (left, i) => {
    r = left ? nodeHash(proof[i]!, r) : nodeHash(r, proof[i]!);
  });
  return r;
}

/**
 * Verifies that `leafHash` is leaf `index` of the tree of `size` leaves whose root is `root`
 * (RFC 9162 §2.1.3.2).
 * @throws InclusionProofError: as rootFromInclusionProof, and `root` when the computed root is not `root`
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): void {
  checkHashes([root], 'root hash', inclusionError);
  const computed = rootFromInclusionProof(leafHash, index, size, proof);
  if (!sameHash(computed, root)) {
    throw inclusionError(
      'root',
      `inclusion proof for index ${index} computes root ${computed.toString('base64')}, ` +
        `not the tree's root ${Buffer.from(root).toString('base64')}`,
    );
  }
}

/**
 * Verifies that the tree of size n with root rootN extends the tree of size m with root rootM
 * (RFC 9162 §2.1.4.2). For m = n the proof is empty and the roots are equal; for m = 0 the proof
 * is empty and rootM is EMPTY_ROOT (SHA-256 of ""), the only root a size-0 tree has.
 * @throws ConsistencyProofError: `range` when m > n or a size is not a tree size, `hash-size`,
 *   `length` for a path of the wrong length for (m, n), `old-root` when the proof does not lead
 *   to rootM (the old tree is not a prefix of what the proof describes), `new-root` when it does
 *   not lead to rootN
 */
export function verifyConsistency(
  m: number,
  n: number,
  rootM: Uint8Array,
  rootN: Uint8Array,
  proof: readonly Uint8Array[],
): void {
  if (!isTreeSize(m) || !isTreeSize(n)) {
    throw consistencyError(
      'range',
      `tree sizes must be integers from 0 to 2^53 − 1, got ${m} and ${n}`,
    );
  }
  if (m > n) {
    throw consistencyError(
      'range',
      `old tree size ${m} is larger than new tree size ${n}: a log never shrinks`,
    );
  }
  checkHashes([rootM], 'old root hash', consistencyError);
  checkHashes([rootN], 'new root hash', consistencyError);
  checkHashes(proof, 'consistency proof hash', consistencyError);
  if (m === 0 || m === n) {
    if (proof.length !== 0) {
      throw consistencyError(
        'length',
        `consistency proof from size ${m} to ${n} must be empty, got ${proof.length} hashes`,
      );
    }
    if (m === 0 && !sameHash(rootM, EMPTY_ROOT)) {
      throw consistencyError(
        'old-root',
        'the root of a tree of size 0 must be SHA-256 of the empty string',
      );
    }
    if (m === n && !sameHash(rootM, rootN)) {
      throw consistencyError('new-root', `two trees of size ${n} have different roots`);
    }
    return;
  }
  // Step 2: when m is a power of two the old root is itself the proof's first node.
  const path = isPowerOfTwo(m) ? [rootM, ...proof] : [...proof];
  // Steps 3–4.
  let fn = m - 1;
  let sn = n - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  const want = 1 + countSteps(fn, sn) - (path.length - proof.length);
  if (proof.length !== want) {
    throw consistencyError(
      'length',
      `consistency proof has ${proof.length} hashes; from size ${m} to ${n} it needs ${want}`,
    );
  }
  // Steps 5–6.
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  walk(fn, sn, (left, i) => {
    const c = path[i + 1]!;
    if (left) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
    } else {
      sr = nodeHash(sr, c);
    }
  });
  // Step 7.
  if (!sameHash(fr, rootM)) {
    throw consistencyError(
      'old-root',
      `consistency proof from size ${m} to ${n} computes old root ${fr.toString('base64')}, ` +
        `not ${Buffer.from(rootM).toString('base64')}`,
    );
  }
  if (!sameHash(sr, rootN)) {
    throw consistencyError(
      'new-root',
      `consistency proof from size ${m} to ${n} computes new root ${sr.toString('base64')}, ` +
        `not ${Buffer.from(rootN).toString('base64')}`,
    );
  }
}
