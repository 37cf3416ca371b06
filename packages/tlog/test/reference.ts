/**
 * An independent, naive RFC 9162 Merkle tree for the tests: the recursive definitions of
 * §2.1.1 (MTH), §2.1.3.1 (PATH) and §2.1.4.1 (PROOF/SUBPROOF) transcribed as written, plus
 * recursive verifiers that mirror those definitions (not the bit-walk of §2.1.3.2/§2.1.4.2).
 * It imports nothing from the package under test: only node:crypto.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** MTH({d}) = SHA-256(0x00 || d) */
export const refLeafHash = (d: Uint8Array): Buffer => sha256(Buffer.from([0]), d);
/** SHA-256(0x01 || left || right) */
const refNodeHash = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Buffer.from([1]), l, r);

/** k: the largest power of two smaller than n (n > 1). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A list of inputs D with MTH(D[a:b]) memoised per range, so 45 000 proofs stay cheap. */
export class RefTree {
  private readonly memo = new Map<string, Buffer>();
  /**
   * @param leaves the inputs D, or `{ uniform }`: a tree of any size (up to 2^53 − 1) whose every
   *   input is `uniform`, so MTH of a range depends on its length only and stays computable
   */
  constructor(readonly leaves: readonly Uint8Array[] | { uniform: Uint8Array }) {}

  private leaf(i: number): Uint8Array {
    return Array.isArray(this.leaves)
      ? this.leaves[i]!
      : (this.leaves as { uniform: Uint8Array }).uniform;
  }

  /** MTH(D[a:b]) (RFC 9162 §2.1.1). */
  mth(a: number, b: number): Buffer {
    const key = Array.isArray(this.leaves) ? `${a}:${b}` : `${b - a}`;
    const hit = this.memo.get(key);
    if (hit) return hit;
    let out: Buffer;
    const n = b - a;
    if (n === 0) out = sha256();
    else if (n === 1) out = refLeafHash(this.leaf(a));
    else {
      const k = splitPoint(n);
      out = refNodeHash(this.mth(a, a + k), this.mth(a + k, b));
    }
    this.memo.set(key, out);
    return out;
  }

  /** PATH(m, D[a:b]) (RFC 9162 §2.1.3.1). */
  path(m: number, a: number, b: number): Buffer[] {
    const n = b - a;
    if (n === 1) return [];
    const k = splitPoint(n);
    if (m < k) return [...this.path(m, a, a + k), this.mth(a + k, b)];
    return [...this.path(m - k, a + k, b), this.mth(a, a + k)];
  }

  /** PROOF(m, D[0:n]) = SUBPROOF(m, D[0:n], true) (RFC 9162 §2.1.4.1). */
  proof(m: number, n: number): Buffer[] {
    return this.subproof(m, 0, n, true);
  }

  private subproof(m: number, a: number, b: number, whole: boolean): Buffer[] {
    const n = b - a;
    if (m === n) return whole ? [] : [this.mth(a, b)];
    const k = splitPoint(n);
    if (m <= k) return [...this.subproof(m, a, a + k, whole), this.mth(a + k, b)];
    return [...this.subproof(m - k, a + k, b, false), this.mth(a, a + k)];
  }
}

/** The leaf ranges [start, end) of PATH(m, D[0:n]), leaf side first, without hashing. */
export function pathRanges(m: number, a: number, b: number): [number, number][] {
  const n = b - a;
  if (n === 1) return [];
  const k = splitPoint(n);
  if (m < k) return [...pathRanges(m, a, a + k), [a + k, b]];
  return [...pathRanges(m - k, a + k, b), [a, a + k]];
}

/** The leaf ranges of PROOF(m, D[0:n]), without hashing. */
export function proofRanges(m: number, a: number, b: number, whole = true): [number, number][] {
  const n = b - a;
  if (m === n) return whole ? [] : [[a, b]];
  const k = splitPoint(n);
  if (m <= k) return [...proofRanges(m, a, a + k, whole), [a + k, b]];
  return [...proofRanges(m - k, a + k, b, false), [a, a + k]];
}

/** The root an audit path leads to, by PATH's recursion read backwards; null if its length is wrong. */
export function refRootFromPath(
  m: number,
  n: number,
  leaf: Uint8Array,
  path: readonly Uint8Array[],
): Buffer | null {
  if (n === 1) return path.length === 0 ? Buffer.from(leaf) : null;
  if (path.length === 0) return null;
  const k = splitPoint(n);
  const last = path[path.length - 1]!;
  const rest = path.slice(0, -1);
  if (m < k) {
    const left = refRootFromPath(m, k, leaf, rest);
    return left && refNodeHash(left, last);
  }
  const right = refRootFromPath(m - k, n - k, leaf, rest);
  return right && refNodeHash(last, right);
}

/** (old root, new root) a consistency proof leads to, by SUBPROOF's recursion; null if malformed. */
function refSub(
  m: number,
  n: number,
  proof: readonly Uint8Array[],
  whole: boolean,
  oldRoot: Uint8Array,
): [Buffer, Buffer] | null {
  if (m === n) {
    if (whole) return proof.length === 0 ? [Buffer.from(oldRoot), Buffer.from(oldRoot)] : null;
    return proof.length === 1 ? [Buffer.from(proof[0]!), Buffer.from(proof[0]!)] : null;
  }
  if (proof.length === 0) return null;
  const k = splitPoint(n);
  const last = proof[proof.length - 1]!;
  const rest = proof.slice(0, -1);
  if (m <= k) {
    const sub = refSub(m, k, rest, whole, oldRoot);
    return sub && [sub[0], refNodeHash(sub[1], last)];
  }
  const sub = refSub(m - k, n - k, rest, false, oldRoot);
  return sub && [refNodeHash(last, sub[0]), refNodeHash(last, sub[1])];
}

/** True when `proof` proves the tree (n, rootN) extends (m, rootM), for 0 < m ≤ n. */
export function refVerifyConsistency(
  m: number,
  n: number,
  rootM: Uint8Array,
  rootN: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  const got = refSub(m, n, proof, true, rootM);
  return got !== null && got[0].equals(rootM) && got[1].equals(rootN);
}

/** Deterministic distinct leaf inputs: leaf i is the UTF-8 of "leaf-<i>". */
export function makeLeaves(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => Buffer.from(`leaf-${i}`));
}
