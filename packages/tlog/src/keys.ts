import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { decodeBase64 } from '@world/canonical';
import { KeyFormatError } from './errors.js';

/** C2SP signed-note signature type of Ed25519 ("Signature types": 0x01). */
const ED25519_SIGNATURE_TYPE = 0x01;
const ED25519_KEY_BYTES = 32;
const ED25519_SIGNATURE_BYTES = 64;
/** The literal prefix of a signer key, so it is never mistaken for a verifier key (golang.org/x/mod/sumdb/note). */
export const SIGNER_KEY_PREFIX = 'PRIVATE+KEY+';
/** RFC 8410 §7: the PKCS#8 DER of an Ed25519 private key is this prefix followed by the 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Checks a signature's key ID and verifies it over the note text. */
export interface NoteVerifier {
  /** the key name, as on signature lines */
  readonly name: string;
  /** the 32-bit key ID (big-endian first 4 bytes of the signature) */
  readonly keyId: number;
  /** the verifier key text, `<name>+<8 hex>+<base64(0x01 ‖ public key)>` */
  readonly vkey: string;
  /** true when `signature` (without its 4-byte key ID) signs `text` */
  verify(text: Uint8Array, signature: Uint8Array): boolean;
}

/** Signs note texts with one Ed25519 key; holds the private key as an opaque KeyObject. */
export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  /** the matching verifier key text, safe to publish */
  readonly vkey: string;
  /** the 64-byte Ed25519 signature of `text` (RFC 8032) */
  sign(text: Uint8Array): Buffer;
}

/**
 * A valid key name: non-empty, with no Unicode white space and no "+" (C2SP signed-note "Format").
 */
export function isValidKeyName(name: string): boolean {
  return name !== '' && !/[\p{White_Space}+]/u.test(name) && !/[\uD800-\uDFFF]/u.test(name);
}

/**
 * The key ID: SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key)[:4] as a big-endian uint32
 * (C2SP signed-note "Signatures").
 * @param typedKey the signature type byte followed by the public key (33 bytes for Ed25519)
 */
export function noteKeyId(name: string, typedKey: Uint8Array): number {
  return createHash('sha256').update(name).update('\n').update(typedKey).digest().readUInt32BE(0);
}

/** A key ID as 8 lowercase hex digits, as key texts and messages print it. */
export function formatKeyId(keyId: number): string {
  return keyId.toString(16).padStart(8, '0');
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x as string, 'base64url');
}

function typed(publicKey: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([ED25519_SIGNATURE_TYPE]), publicKey]);
}

/**
 * The verifier key text of an Ed25519 public key: `<name>+<key ID hex>+<base64(0x01 ‖ key)>`
 * (golang.org/x/mod/sumdb/note, "Verifying Notes").
 * @throws KeyFormatError for an invalid name or a key that is not 32 bytes
 * @internal exported for keys.spec.ts
 */
export function verifierKey(name: string, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) throw new KeyFormatError(nameProblem('verifier key', name));
  if (publicKey.length !== ED25519_KEY_BYTES) {
    throw new KeyFormatError(`an Ed25519 public key is 32 bytes, got ${publicKey.length}`);
  }
  const key = typed(publicKey);
  return `${name}+${formatKeyId(noteKeyId(name, key))}+${key.toString('base64')}`;
}

/**
 * A new Ed25519 key pair for a key name (node:crypto's generator).
 * @returns skey: `PRIVATE+KEY+<name>+<id>+<base64(0x01 ‖ seed)>` (secret: file mode 0600, never
 *   logged); vkey: the verifier key to publish
 * @throws KeyFormatError for an invalid name
 * @internal exported for keys.spec.ts, note.spec.ts, checkpoint.spec.ts, tlog-proof.spec.ts, apps/gateway/src/workbench/proof-section.spec.ts, apps/cli/test/e2e/transparency.e2e-spec.ts
 */
export function generateNoteKey(name: string): { skey: string; vkey: string } {
  if (!isValidKeyName(name)) throw new KeyFormatError(nameProblem('signer key', name));
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  const seed = der.subarray(PKCS8_ED25519_PREFIX.length);
  const vkey = verifierKey(name, rawPublicKey(createPublicKey(privateKey)));
  const keyId = vkey.split('+')[1]!;
  return { skey: `${SIGNER_KEY_PREFIX}${name}+${keyId}+${typed(seed).toString('base64')}`, vkey };
}

function nameProblem(what: string, name: string): string {
  return `${what} name "${name}" is invalid: it must be non-empty, with no spaces and no "+"`;
}

/** Splits `<name>+<8 hex>+<base64>` and decodes the typed Ed25519 key material. */
function splitKey(text: string, what: string): { name: string; keyId: number; key: Buffer } {
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (second < 0) {
    throw new KeyFormatError(`${what} must be <name>+<8 hex key ID>+<base64 key>`);
  }
  const name = text.slice(0, first);
  const id = text.slice(first + 1, second);
  const data = text.slice(second + 1);
  if (!isValidKeyName(name)) throw new KeyFormatError(nameProblem(what, name));
  if (!/^[0-9a-fA-F]{8}$/.test(id)) {
    throw new KeyFormatError(`${what}: key ID must be 8 hex digits, got "${id}"`);
  }
  let key: Buffer;
  try {
    key = decodeBase64(data, `${what} key data`);
  } catch {
    throw new KeyFormatError(`${what}: key data is not standard padded base64`);
  }
  if (key.length === 0) throw new KeyFormatError(`${what}: no key data`);
  if (key[0] !== ED25519_SIGNATURE_TYPE) {
    throw new KeyFormatError(
      `${what}: signature type 0x${key[0]!.toString(16).padStart(2, '0')} is not supported (only Ed25519, 0x01)`,
    );
  }
  if (key.length !== 1 + ED25519_KEY_BYTES) {
    throw new KeyFormatError(`${what}: an Ed25519 key is 32 bytes, got ${key.length - 1}`);
  }
  return { name, keyId: parseInt(id, 16), key: key.subarray(1) };
}

function checkKeyId(what: string, name: string, claimed: number, publicKey: Uint8Array): void {
  const actual = noteKeyId(name, typed(publicKey));
  if (actual !== claimed) {
    throw new KeyFormatError(
      `${what}: key ID ${formatKeyId(claimed)} does not match its name and key (expected ${formatKeyId(actual)})`,
    );
  }
}

/**
 * Parses a verifier key `<name>+<8 hex>+<base64(0x01 ‖ 32-byte Ed25519 public key)>` strictly
 * (golang.org/x/mod/sumdb/note NewVerifier; key ID per C2SP signed-note).
 * @throws KeyFormatError naming the first problem: shape, name, key ID syntax, base64, signature
 *   type, key length, or a key ID that is not the key's
 */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const { name, keyId, key } = splitKey(vkey, 'verifier key');
  checkKeyId('verifier key', name, keyId, key);
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.toString('base64url') },
    format: 'jwk',
  });
  return {
    name,
    keyId,
    vkey: verifierKey(name, key),
    verify: (text, signature) =>
      signature.length === ED25519_SIGNATURE_BYTES && verify(null, text, publicKey, signature),
  };
}

/**
 * Parses a signer key `PRIVATE+KEY+<name>+<8 hex>+<base64(0x01 ‖ 32-byte seed)>` and checks that
 * its key ID is that of the public key the seed derives (golang.org/x/mod/sumdb/note NewSigner).
 * Error messages never quote the key data.
 * @throws KeyFormatError naming the first problem
 */
export function parseSignerKey(skey: string): NoteSigner {
  if (!skey.startsWith(SIGNER_KEY_PREFIX)) {
    throw new KeyFormatError(`signer key must start with "${SIGNER_KEY_PREFIX}"`);
  }
  const { name, keyId, key } = splitKey(skey.slice(SIGNER_KEY_PREFIX.length), 'signer key');
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, key]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  checkKeyId('signer key', name, keyId, publicKey);
  return {
    name,
    keyId,
    vkey: verifierKey(name, publicKey),
    sign: (text) => sign(null, text, privateKey),
  };
}
