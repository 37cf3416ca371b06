import { decodeBase64 } from '@world/canonical';
import { MAX_TREE_SIZE } from './coords.js';
import { CheckpointFormatError, CheckpointOriginError, NoteFormatError } from './errors.js';
import { HASH_SIZE } from './hash.js';
import { type NoteSigner, type NoteVerifier } from './keys.js';
import { checkNoteText, openNote, signNote, type OpenedNote } from './note.js';

/**
 * A C2SP tlog-checkpoint: the signed note body `<origin>\n<tree size>\n<base64 root hash>\n`
 * followed by optional extension lines.
 */
export interface Checkpoint {
  /** the log's identity, e.g. `world.example/log-3f2a` (non-empty) */
  readonly origin: string;
  /** number of leaves, 0 … 2^53 − 1 */
  readonly size: number;
  /** the RFC 9162 root (MTH) at that size, 32 bytes */
  readonly rootHash: Buffer;
  /** opaque extra lines, each non-empty (NOT RECOMMENDED by the spec; World writes none) */
  readonly extensions: readonly string[];
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

function checkLine(value: string, what: string): void {
  if (value === '') throw new CheckpointFormatError(`checkpoint ${what} is empty`);
  if (value.includes('\n'))
    throw new CheckpointFormatError(`checkpoint ${what} contains a newline`);
}

/**
 * The note text of a checkpoint (C2SP tlog-checkpoint "Note text").
 * @throws CheckpointFormatError for an empty or multi-line origin or extension, a size that is
 *   not a tree size, or a root hash that is not 32 bytes
 * @internal exported for checkpoint.spec.ts
 */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  checkLine(checkpoint.origin, 'origin');
  if (!Number.isSafeInteger(checkpoint.size) || checkpoint.size < 0) {
    throw new CheckpointFormatError(
      `checkpoint tree size must be an integer from 0 to 2^53 − 1, got ${checkpoint.size}`,
    );
  }
  if (checkpoint.rootHash.length !== HASH_SIZE) {
    throw new CheckpointFormatError(
      `checkpoint root hash is ${checkpoint.rootHash.length} bytes, not ${HASH_SIZE}`,
    );
  }
  checkpoint.extensions.forEach((line, i) => checkLine(line, `extension line ${i + 1}`));
  const lines = [
    checkpoint.origin,
    String(checkpoint.size),
    checkpoint.rootHash.toString('base64'),
    ...checkpoint.extensions,
  ];
  const text = `${lines.join('\n')}\n`;
  try {
    checkNoteText(text, 'checkpoint');
  } catch (error) {
    throw new CheckpointFormatError((error as NoteFormatError).message);
  }
  return text;
}

/**
 * Parses a checkpoint note text strictly (C2SP tlog-checkpoint "Note text").
 * @param text the note text (what openNote returns as `text`), final newline included
 * @throws CheckpointFormatError naming the line: no final newline, fewer than 3 lines, empty
 *   origin, size not a decimal without leading zeros or past 2^53 − 1, root hash not padded
 *   base64 of 32 bytes, an empty extension line
 */
export function parseCheckpoint(text: string): Checkpoint {
  try {
    checkNoteText(text, 'checkpoint');
  } catch (error) {
    throw new CheckpointFormatError((error as NoteFormatError).message);
  }
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) {
    throw new CheckpointFormatError(
      `checkpoint has ${lines.length} line${lines.length === 1 ? '' : 's'}; it needs at least 3 (origin, tree size, root hash)`,
    );
  }
  const [origin, sizeText, rootText, ...extensions] = lines as [
    string,
    string,
    string,
    ...string[],
  ];
  if (origin === '') throw new CheckpointFormatError('checkpoint origin (line 1) is empty');
  if (!DECIMAL.test(sizeText)) {
    throw new CheckpointFormatError(
      `checkpoint tree size (line 2) "${sizeText}" is not a decimal number without leading zeros`,
    );
  }
  const size = Number(sizeText);
  if (size > MAX_TREE_SIZE) {
    throw new CheckpointFormatError(`checkpoint tree size (line 2) ${sizeText} is past 2^53 − 1`);
  }
  let rootHash: Buffer;
  try {
    rootHash = decodeBase64(rootText, 'root hash');
  } catch {
    throw new CheckpointFormatError('checkpoint root hash (line 3) is not standard padded base64');
  }
  if (rootHash.length !== HASH_SIZE) {
    throw new CheckpointFormatError(
      `checkpoint root hash (line 3) is ${rootHash.length} bytes, not ${HASH_SIZE}`,
    );
  }
  extensions.forEach((line, i) => {
    if (line === '') throw new CheckpointFormatError(`checkpoint line ${i + 4} is empty`);
  });
  return { origin, size, rootHash, extensions };
}

/**
 * Signs a checkpoint with the log's key: the signed note of formatCheckpoint's text.
 * @throws CheckpointFormatError for an invalid checkpoint
 */
export function signCheckpoint(checkpoint: Checkpoint, signer: NoteSigner): string {
  return signNote(formatCheckpoint(checkpoint), [signer]);
}

/**
 * Verifies a signed checkpoint with the log's verifier key, then parses it and checks its origin
 * (C2SP tlog-checkpoint; signatures by other keys, such as witnesses, are ignored).
 * @param message the signed note's bytes or text
 * @param verifier the log's key
 * @param origin the expected origin line; defaults to the key name (the spec's SHOULD)
 * @throws NoteFormatError / BadSignatureError / WrongKeyError / UnknownKeyError from openNote,
 *   CheckpointFormatError for a body that is not a checkpoint, CheckpointOriginError for another log's
 */
export function openCheckpoint(
  message: string | Uint8Array,
  verifier: NoteVerifier,
  origin: string = verifier.name,
): { checkpoint: Checkpoint; note: OpenedNote } {
  const note = openNote(message, [verifier]);
  const checkpoint = parseCheckpoint(note.text);
  if (checkpoint.origin !== origin) {
    throw new CheckpointOriginError(
      `checkpoint origin "${checkpoint.origin}" is not the expected origin "${origin}"`,
    );
  }
  return { checkpoint, note };
}
