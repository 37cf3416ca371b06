/**
 * An independent transparency-log verifier for World's tests, sharing none of the server's code
 * so a bug in it cannot hide a bug in the ledger: RFC 9162 §2.1 Merkle tree hash, inclusion and
 * consistency proof verification, and C2SP signed-note/tlog-checkpoint opening with Ed25519,
 * written from the specifications with node:crypto alone. It imports nothing of @world/tlog or the
 * ledger.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** RFC 9162 §2.1.1: leaf hash = SHA-256(0x00 ‖ d). */
export function mthLeaf(data: Uint8Array): Buffer {
  return sha256(Buffer.from([0]), data);
}

/** RFC 9162 §2.1.1: MTH(D[n]) over leaf hashes, recursively split at the largest power of two < n. */
export function mth(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** RFC 9162 §2.1.3.2: true when `path` proves leaf `index` of tree `size` has root `root`. */
export function checkInclusion(
  leaf: Buffer,
  index: number,
  size: number,
  path: readonly Buffer[],
  root: Buffer,
): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = sha256(Buffer.from([1]), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2: true when `path` proves tree (n, rootN) extends tree (m, rootM). */
export function checkConsistency(
  m: number,
  n: number,
  rootM: Buffer,
  rootN: Buffer,
  path: readonly Buffer[],
): boolean {
  if (m > n) return false;
  if (m === n) return path.length === 0 && rootM.equals(rootN);
  if (m === 0) return path.length === 0 && rootM.equals(sha256());
  if (path.length === 0) return false;
  const p = (m & (m - 1)) === 0 ? [rootM, ...path] : [...path];
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = p[0]!;
  let sr = p[0]!;
  for (const c of p.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = sha256(Buffer.from([1]), c, fr);
      sr = sha256(Buffer.from([1]), c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = sha256(Buffer.from([1]), sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(rootM) && sr.equals(rootN) && sn === 0;
}

/** What an opened checkpoint states. */
export interface OpenedCheckpoint {
  origin: string;
  size: number;
  root: Buffer;
}

/**
 * Opens a C2SP tlog-checkpoint signed note with a vkey `<name>+<hex id>+<base64(0x01 ‖ key)>`:
 * the signature line `— <name> <base64(id ‖ sig)>` whose key ID matches must verify (Ed25519 over
 * the note text). Throws an Error on any failure.
 */
export function openCheckpointNote(note: string, vkey: string): OpenedCheckpoint {
  const [name, idHex, ...rest] = vkey.trim().split('+');
  const key = Buffer.from(rest.join('+'), 'base64');
  if (key[0] !== 1 || key.length !== 33) throw new Error('not an Ed25519 vkey');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new Error('no signature block');
  const text = note.slice(0, split + 1);
  const lines = note
    .slice(split + 2)
    .split('\n')
    .filter((l) => l !== '');
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.subarray(1).toString('base64url') },
    format: 'jwk',
  });
  const ok = lines.some((line) => {
    const m = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (m === null || m[1] !== name) return false;
    const sig = Buffer.from(m[2]!, 'base64');
    if (sig.subarray(0, 4).toString('hex') !== idHex) return false;
    return verify(null, Buffer.from(text, 'utf8'), publicKey, sig.subarray(4));
  });
  if (!ok) throw new Error('no valid signature by the key');
  const [origin, size, root] = text.split('\n');
  return { origin: origin!, size: Number(size), root: Buffer.from(root!, 'base64') };
}
