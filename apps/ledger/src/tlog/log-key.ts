/**
 * The log's Ed25519 signing key (C2SP signed-note checkpoints): created at first start, kept in
 * one file, never logged. Two file forms are read:
 * - a C2SP signed-note signer key `PRIVATE+KEY+<name>+<id>+<base64>` — what the ledger writes
 *   when the file is absent (mode 0600, under WORLD_HOME in embedded mode); its key name is the
 *   log's origin;
 * - 64 hex digits, a raw Ed25519 seed (RFC 8032 §5.1.5) — a compose secret made by
 *   infra/make-secrets.sh, which has no note tooling; the origin is then WORLD_LOG_ORIGIN or the
 *   default below.
 * The default origin is unique to the deployment because it is derived from its key:
 * `world.local/log-<16 hex of SHA-256(public key)>`.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  formatKeyId,
  isValidKeyName,
  KeyFormatError,
  noteKeyId,
  parseSignerKey,
  SIGNER_KEY_PREFIX,
  type NoteSigner,
} from '@world/tlog';

/** RFC 8410 §7: the PKCS#8 DER of an Ed25519 private key is this prefix + the 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SEED_BYTES = 32;
const SEED_HEX = /^[0-9a-f]{64}$/i;

/** Where the log key comes from. */
export interface LogKeyOptions {
  /** the key file: read, or created (mode 0600) when absent; absent = a key for this process only (tests) */
  file?: string;
  /** the origin line (= key name); default from the key (file doc) */
  origin?: string;
}

/** The default origin of a key: derived from its public key, so unique to the deployment. */
function defaultOrigin(publicKey: Uint8Array): string {
  return `world.local/log-${createHash('sha256').update(publicKey).digest('hex').slice(0, 16)}`;
}

function publicKeyOf(seed: Buffer): Buffer {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return Buffer.from(
    createPublicKey(privateKey).export({ format: 'jwk' }).x as string,
    'base64url',
  );
}

/** The signer key text of a seed under a name (C2SP signed-note key ID). */
function signerKeyText(seed: Buffer, origin: string | undefined): string {
  const publicKey = publicKeyOf(seed);
  const name = origin ?? defaultOrigin(publicKey);
  if (!isValidKeyName(name))
    throw new KeyFormatError(
      `log origin "${name}" is invalid: it must be non-empty, with no spaces and no "+"`,
    );
  const typed = (key: Buffer) => Buffer.concat([Buffer.from([0x01]), key]);
  const id = formatKeyId(noteKeyId(name, typed(publicKey)));
  return `${SIGNER_KEY_PREFIX}${name}+${id}+${typed(seed).toString('base64')}`;
}

/**
 * Loads (or creates) the log's signing key.
 * @throws KeyFormatError when the file is neither form, or its key name is not the configured
 *   origin (a key signs for one origin only); the message never quotes key material
 * @throws the file system's error when the file cannot be read or created
 */
export function loadLogKey(options: LogKeyOptions): NoteSigner {
  if (options.file === undefined)
    return parseSignerKey(signerKeyText(randomBytes(SEED_BYTES), options.origin));
  let text: string;
  try {
    text = readFileSync(options.file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    text = createKeyFile(options.file, options.origin);
  }
  if (SEED_HEX.test(text))
    return parseSignerKey(signerKeyText(Buffer.from(text, 'hex'), options.origin));
  if (!text.startsWith(SIGNER_KEY_PREFIX))
    throw new KeyFormatError(
      `log key file ${options.file} holds neither a signer key (${SIGNER_KEY_PREFIX}…) nor 64 hex digits of an Ed25519 seed`,
    );
  const signer = parseSignerKey(text);
  if (options.origin !== undefined && signer.name !== options.origin)
    throw new KeyFormatError(
      `log key file ${options.file} signs for origin "${signer.name}", not the configured WORLD_LOG_ORIGIN "${options.origin}"`,
    );
  return signer;
}

/** Writes a new key file exclusively (mode 0600); a replica that lost the race reads the winner's. */
function createKeyFile(file: string, origin: string | undefined): string {
  const text = signerKeyText(randomBytes(SEED_BYTES), origin);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${text}\n`, { mode: 0o600, flag: 'wx' });
    return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFileSync(file, 'utf8').trim();
  }
}
