import { decodeBase64, encodeBase64 } from '@world/canonical';
import { openCheckpoint, type Checkpoint } from './checkpoint.js';
import { InclusionProofError, NoteFormatError, TlogProofFormatError } from './errors.js';
import { HASH_SIZE } from './hash.js';
import { type NoteVerifier } from './keys.js';
import { checkNoteCharacters, decodeNoteText } from './note.js';
import { verifyInclusion } from './verify.js';

/** The first line of every C2SP tlog-proof. */
const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/**
 * A C2SP tlog-proof: an offline proof that one entry is in a checkpointed tree.
 */
export interface TlogProof {
  /** opaque, unauthenticated application data (`extra` line), absent when there is none */
  readonly extra?: Buffer;
  /** the entry's zero-based index in the log */
  readonly index: number;
  /** the inclusion proof for `index` in the checkpoint's tree, leaf side first (32 bytes each) */
  readonly proof: readonly Buffer[];
  /** the signed checkpoint note, verbatim */
  readonly checkpoint: string;
}

const INDEX_LINE = /^index (0|[1-9][0-9]*)$/;

/**
 * The text of a tlog-proof (C2SP tlog-proof "Format").
 * @throws TlogProofFormatError for an index that is not a safe integer, a hash that is not 32
 *   bytes, or a checkpoint that is empty or does not end with a newline
 */
export function formatTlogProof(proof: TlogProof): string {
  if (!Number.isSafeInteger(proof.index) || proof.index < 0) {
    throw new TlogProofFormatError(
      `tlog-proof index must be a non-negative integer, got ${proof.index}`,
    );
  }
  proof.proof.forEach((hash, i) => {
    if (hash.length !== HASH_SIZE) {
      throw new TlogProofFormatError(
        `tlog-proof hash ${i + 1} is ${hash.length} bytes, not ${HASH_SIZE}`,
      );
    }
  });
  if (proof.checkpoint === '' || !proof.checkpoint.endsWith('\n')) {
    throw new TlogProofFormatError(
      'tlog-proof checkpoint must be a signed note ending in a newline',
    );
  }
  const lines = [TLOG_PROOF_HEADER];
  if (proof.extra !== undefined) lines.push(`extra ${encodeBase64(proof.extra)}`);
  lines.push(`index ${proof.index}`, ...proof.proof.map((h) => encodeBase64(h)), '');
  return `${lines.join('\n')}\n${proof.checkpoint}`;
}

/**
 * Parses a tlog-proof strictly (C2SP tlog-proof "Format"); the checkpoint is kept verbatim and
 * checked only by verifyTlogProof.
 * @throws TlogProofFormatError naming the line: wrong first line, bad extra data, a missing or
 *   malformed index line, a hash line that is not padded base64 of 32 bytes, no blank line
 *   before the checkpoint, or no checkpoint
 */
export function parseTlogProof(input: string | Uint8Array): TlogProof {
  let text: string;
  try {
    text = decodeNoteText(input, 'tlog-proof');
    checkNoteCharacters(text, 'tlog-proof');
  } catch (error) {
    throw new TlogProofFormatError((error as NoteFormatError).message);
  }
  const lines = text.split('\n');
  if (lines[0] !== TLOG_PROOF_HEADER) {
    throw new TlogProofFormatError(`tlog-proof must start with the line "${TLOG_PROOF_HEADER}"`);
  }
  let at = 1;
  let extra: Buffer | undefined;
  if (lines[at]?.startsWith('extra ')) {
    try {
      extra = decodeBase64(lines[at]!.slice('extra '.length), 'extra');
    } catch {
      throw new TlogProofFormatError(
        'tlog-proof extra data (line 2) is not standard padded base64',
      );
    }
    at += 1;
  }
  const index = INDEX_LINE.exec(lines[at] ?? '');
  if (index === null) {
    throw new TlogProofFormatError(
      `tlog-proof line ${at + 1} must be "index <decimal without leading zeros>"`,
    );
  }
  const value = Number(index[1]);
  if (!Number.isSafeInteger(value)) {
    throw new TlogProofFormatError(`tlog-proof index ${index[1]} is past 2^53 − 1`);
  }
  at += 1;
  const proof: Buffer[] = [];
  for (; at < lines.length && lines[at] !== ''; at++) {
    let hash: Buffer;
    try {
      hash = decodeBase64(lines[at]!, 'hash');
    } catch {
      throw new TlogProofFormatError(
        `tlog-proof line ${at + 1} is not a standard padded base64 hash`,
      );
    }
    if (hash.length !== HASH_SIZE) {
      throw new TlogProofFormatError(
        `tlog-proof line ${at + 1} is a ${hash.length}-byte hash, not ${HASH_SIZE}`,
      );
    }
    proof.push(hash);
  }
  if (at >= lines.length) {
    throw new TlogProofFormatError('tlog-proof has no blank line before its checkpoint');
  }
  const checkpoint = lines.slice(at + 1).join('\n');
  if (checkpoint === '')
    throw new TlogProofFormatError('tlog-proof has no checkpoint after its blank line');
  return extra === undefined
    ? { index: value, proof, checkpoint }
    : { extra, index: value, proof, checkpoint };
}

/**
 * Verifies a tlog-proof offline: the checkpoint's signature by the log's key and origin, then
 * the inclusion of `leafHash` at the proof's index in the checkpoint's tree (C2SP tlog-proof,
 * RFC 9162 §2.1.3.2). The extra data is returned unauthenticated, as the spec warns.
 * @param leafHash leafHash of the entry's bytes, computed by the verifier from the entry itself
 * @throws TlogProofFormatError; the openCheckpoint errors; InclusionProofError
 */
export function verifyTlogProof(
  input: string | Uint8Array,
  leafHash: Uint8Array,
  verifier: NoteVerifier,
  origin: string = verifier.name,
): { checkpoint: Checkpoint; index: number; extra?: Buffer } {
  const parsed = parseTlogProof(input);
  const { checkpoint } = openCheckpoint(parsed.checkpoint, verifier, origin);
  if (parsed.index >= checkpoint.size) {
    throw new InclusionProofError(
      'range',
      `tlog-proof index ${parsed.index} is not below the checkpoint's tree size ${checkpoint.size}`,
    );
  }
  verifyInclusion(leafHash, parsed.index, checkpoint.size, parsed.proof, checkpoint.rootHash);
  return parsed.extra === undefined
    ? { checkpoint, index: parsed.index }
    : { checkpoint, index: parsed.index, extra: parsed.extra };
}
