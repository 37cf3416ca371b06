import { createHash } from 'node:crypto';
import { TreeStateError } from './errors.js';

/** Bytes in one SHA-256 tree hash (RFC 9162 §2.1: the log's hash algorithm is SHA-256). */
export const HASH_SIZE = 32;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/**
 * The leaf hash of one log entry: SHA-256(0x00 ‖ leaf bytes) (RFC 9162 §2.1.1, MTH of a one-element
 * list). World's leaf bytes are the entry's canonical header, the bytes its entryHash hashes.
 * @param leaf the leaf's input bytes (any length, including empty)
 * @returns 32 bytes
 */
export function leafHash(leaf: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(leaf).digest();
}

/**
 * An interior node: SHA-256(0x01 ‖ left ‖ right) (RFC 9162 §2.1.1).
 * @param left 32-byte hash of the left subtree
 * @param right 32-byte hash of the right subtree
 * @returns 32 bytes
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The root of the empty tree: SHA-256 of the empty string (RFC 9162 §2.1.1, MTH({})). */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

/** Copies a hash so callers may keep it while the caller's buffer is reused. */
export function copyHash(hash: Uint8Array): Buffer {
  return Buffer.from(hash);
}

/**
 * Checks that `hash` is exactly HASH_SIZE bytes.
 * @param what names the hash in the error (e.g. "compact range hash 2")
 * @throws TreeStateError otherwise
 */
export function checkHashSize(hash: Uint8Array, what: string): void {
  if (!(hash instanceof Uint8Array) || hash.length !== HASH_SIZE) {
    const got = hash instanceof Uint8Array ? `${hash.length} bytes` : typeof hash;
    throw new TreeStateError(`${what} must be ${HASH_SIZE} bytes, got ${got}`);
  }
}

/** Byte equality of two hashes (public values, so no constant-time comparison is needed). */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
