import { decodeBase64 } from '@world/canonical';
import { NOTE_MAX_SIGNATURES } from '@world/contracts';
import {
  BadSignatureError,
  KeyFormatError,
  NoteFormatError,
  UnknownKeyError,
  WrongKeyError,
} from './errors.js';
import { formatKeyId, isValidKeyName, type NoteSigner, type NoteVerifier } from './keys.js';

/**
 * C2SP signed-note: a text ending in a newline, a blank line, then one or more lines
 * `— <key name> <base64(4-byte big-endian key ID ‖ signature)>`.
 */

/** One signature line of a note. */
interface NoteSignature {
  readonly name: string;
  readonly keyId: number;
  /** the signature bytes after the 4-byte key ID */
  readonly signature: Buffer;
  /** the line's base64 field, verbatim */
  readonly base64: string;
}

/** A note split into its text and its (not yet verified) signatures. */
export interface ParsedNote {
  /** the signed text, final newline included, separating blank line excluded */
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

/** A note whose known-key signatures all verified (at least one did). */
export interface OpenedNote extends ParsedNote {
  /** signatures by a known key (name and key ID), each verified; one per key */
  readonly verified: readonly NoteSignature[];
  /** signatures by keys the caller does not know, ignored as the spec requires */
  readonly unverified: readonly NoteSignature[];
}

const SIGNATURE_PREFIX = '— ';
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes a note's bytes as UTF-8, refusing invalid sequences (a string must not hold lone
 * surrogates, which have no UTF-8 form).
 * @param what names the input in errors ("note", "tlog-proof")
 * @throws NoteFormatError
 */
export function decodeNoteText(input: string | Uint8Array, what = 'note'): string {
  if (typeof input === 'string') {
    if (/[\uD800-\uDFFF]/u.test(input)) throw new NoteFormatError(`${what} is not valid UTF-8`);
    return input;
  }
  try {
    return utf8.decode(input);
  } catch {
    throw new NoteFormatError(`${what} is not valid UTF-8`);
  }
}

/**
 * Refuses ASCII control characters other than newline (C2SP signed-note "Format").
 * @throws NoteFormatError naming the line (1-based) and the character
 */
export function checkNoteCharacters(text: string, what = 'note'): void {
  let at = 0;
  while (at < text.length && (text.charCodeAt(at) >= 0x20 || text.charCodeAt(at) === 0x0a)) at++;
  if (at === text.length) return;
  const line = text.slice(0, at).split('\n').length;
  const code = text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0');
  throw new NoteFormatError(
    `${what} line ${line} contains control character U+${code}; only newline (U+000A) is allowed`,
  );
}

function parseSignatureLine(line: string, n: number): NoteSignature {
  if (!line.startsWith(SIGNATURE_PREFIX)) {
    throw new NoteFormatError(`signature line ${n} must start with "— " (U+2014, space)`);
  }
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) {
    throw new NoteFormatError(`signature line ${n} must be "— <key name> <base64 signature>"`);
  }
  const name = rest.slice(0, space);
  const base64 = rest.slice(space + 1);
  if (!isValidKeyName(name)) {
    throw new NoteFormatError(
      `signature line ${n} has an invalid key name "${name}": it must be non-empty, with no spaces and no "+"`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = decodeBase64(base64, 'signature');
  } catch {
    throw new NoteFormatError(`signature line ${n}: the signature is not standard padded base64`);
  }
  if (bytes.length < 5) {
    throw new NoteFormatError(
      `signature line ${n}: a signature is a 4-byte key ID and at least 1 signature byte, got ${bytes.length} bytes`,
    );
  }
  return { name, keyId: bytes.readUInt32BE(0), signature: bytes.subarray(4), base64 };
}

/**
 * Splits a signed note strictly, verifying nothing (C2SP signed-note "Format"; the checks follow
 * golang.org/x/mod/sumdb/note Open).
 * @param message the note's bytes or text
 * @throws NoteFormatError: invalid UTF-8, a control character, no blank line before the
 *   signatures, no signature line, a last line without newline, a malformed signature line, or
 *   more than NOTE_MAX_SIGNATURES signatures
 */
export function parseNote(message: string | Uint8Array): ParsedNote {
  const msg = decodeNoteText(message);
  checkNoteCharacters(msg);
  const split = msg.lastIndexOf('\n\n');
  if (split < 0) {
    throw new NoteFormatError(
      'note has no signature block: its text must be followed by a blank line and signature lines',
    );
  }
  const text = msg.slice(0, split + 1);
  const block = msg.slice(split + 2);
  if (block === '') throw new NoteFormatError('note has no signature lines after its blank line');
  if (!block.endsWith('\n')) {
    throw new NoteFormatError("note's last signature line does not end with a newline");
  }
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > NOTE_MAX_SIGNATURES) {
    throw new NoteFormatError(
      `note has ${lines.length} signature lines; at most ${NOTE_MAX_SIGNATURES} are accepted`,
    );
  }
  return { text, signatures: lines.map((line, i) => parseSignatureLine(line, i + 1)) };
}

const keyText = (name: string, keyId: number): string => `${name}+${formatKeyId(keyId)}`;

/**
 * Parses a note and verifies it against the known keys (C2SP signed-note "Signatures"): every
 * signature whose key name and ID match a known key must verify; signatures by other keys are
 * ignored; at least one must be by a known key.
 * @param verifiers the trusted keys (no two with the same name and key ID)
 * @throws NoteFormatError for a malformed note; KeyFormatError for two verifiers with one name
 *   and ID; BadSignatureError when a known key's signature does not verify; WrongKeyError when no
 *   known key signed but a signature carries a known key name (another key under that name);
 *   UnknownKeyError when no signature carries a known key name
 */
export function openNote(
  message: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
): OpenedNote {
  const note = parseNote(message);
  const known = new Map<string, NoteVerifier>();
  for (const v of verifiers) {
    const key = keyText(v.name, v.keyId);
    if (known.has(key)) throw new KeyFormatError(`two verifier keys are ${key}: ambiguous`);
    known.set(key, v);
  }
  const text = Buffer.from(note.text, 'utf8');
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  for (const sig of note.signatures) {
    const key = keyText(sig.name, sig.keyId);
    const verifier = known.get(key);
    if (verifier === undefined) {
      unverified.push(sig);
      continue;
    }
    if (!verifier.verify(text, sig.signature)) {
      throw new BadSignatureError(
        `the signature by ${key} does not verify: the note was altered or not signed by this key`,
      );
    }
    if (!verified.some((v) => v.name === sig.name && v.keyId === sig.keyId)) verified.push(sig);
  }
  if (verified.length === 0) {
    const names = new Set(verifiers.map((v) => v.name));
    const signedBy = note.signatures.map((s) => keyText(s.name, s.keyId)).join(', ');
    const knownKeys = [...known.keys()].join(', ') || 'none';
    const sameName = note.signatures.find((s) => names.has(s.name));
    if (sameName !== undefined) {
      throw new WrongKeyError(
        `the note is signed by ${keyText(sameName.name, sameName.keyId)}, not by the known key ` +
          `${verifiers
            .filter((v) => v.name === sameName.name)
            .map((v) => keyText(v.name, v.keyId))
            .join(', ')}`,
      );
    }
    throw new UnknownKeyError(
      `the note has no signature by a known key name: it is signed by ${signedBy}; known keys: ${knownKeys}`,
    );
  }
  return { ...note, verified, unverified };
}

/**
 * Checks a note text for signing: valid, ending in a newline, no control characters but newline.
 * @param what names the text in errors ("note text", "checkpoint")
 * @throws NoteFormatError
 */
export function checkNoteText(text: string, what = 'note text'): void {
  decodeNoteText(text, what);
  if (!text.endsWith('\n')) throw new NoteFormatError(`${what} must end with a newline`);
  checkNoteCharacters(text, what);
}

/**
 * Signs a note text with one or more keys and returns the signed note: text, blank line, one
 * signature line per signer in order (C2SP signed-note "Format"; Ed25519 per RFC 8032).
 * @throws NoteFormatError for an unsignable text; KeyFormatError for a signer with an invalid name
 */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  checkNoteText(text);
  if (signers.length === 0) throw new NoteFormatError('a note needs at least one signer');
  const bytes = Buffer.from(text, 'utf8');
  const lines = signers.map((s) => {
    if (!isValidKeyName(s.name)) {
      throw new KeyFormatError(
        `signer key name "${s.name}" is invalid: it must be non-empty, with no spaces and no "+"`,
      );
    }
    const id = Buffer.alloc(4);
    id.writeUInt32BE(s.keyId, 0);
    const sig = Buffer.concat([id, s.sign(bytes)]).toString('base64');
    return `${SIGNATURE_PREFIX}${s.name} ${sig}\n`;
  });
  return `${text}\n${lines.join('')}`;
}
