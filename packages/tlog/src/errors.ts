/**
 * The typed failures of @world/tlog. Each class is one kind of refusal, so callers branch on
 * `instanceof` (or `code`), never on message text (CONVENTIONS.md "Errors"). Messages are the
 * exact, human-facing reason: `world verify` prints them on its check lines, and the ledger maps
 * TreeRangeError to a 400 (the gateway's one mapping table).
 */
abstract class TlogError extends Error {
  /** Stable machine name of the failure kind. */
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** An index, size or size pair outside what RFC 9162 §2.1 defines (e.g. index ≥ size, m > n). */
export class TreeRangeError extends TlogError {
  readonly code = 'tree-range';
}

/** A tree state (size + compact range) that is not self-consistent, or hashes of the wrong width. */
export class TreeStateError extends TlogError {
  readonly code = 'tree-state';
}

/** The caller's node getter answered with the wrong number of hashes or a hash of the wrong width. */
export class NodeStoreError extends TlogError {
  readonly code = 'node-store';
}

/** What part of a proof did not hold (RFC 9162 §2.1.3.2, §2.1.4.2). */
export type ProofFailure = 'range' | 'hash-size' | 'length' | 'root' | 'old-root' | 'new-root';

/** A Merkle proof that does not verify; `reason` names which check failed. */
export abstract class ProofError extends TlogError {
  constructor(
    readonly reason: ProofFailure,
    message: string,
  ) {
    super(message);
  }
}

/** An inclusion proof that does not prove the leaf is in the tree (RFC 9162 §2.1.3.2). */
export class InclusionProofError extends ProofError {
  readonly code = 'inclusion-proof';
}

/** A consistency proof that does not prove the new tree extends the old (RFC 9162 §2.1.4.2). */
export class ConsistencyProofError extends ProofError {
  readonly code = 'consistency-proof';
}

/** A verifier key (`<name>+<hex id>+<base64>`) or signer key (`PRIVATE+KEY+…`) that is malformed. */
export class KeyFormatError extends TlogError {
  readonly code = 'key-format';
}

/** A signed note that breaks the C2SP signed-note syntax (or exceeds NOTE_MAX_SIGNATURES). */
export class NoteFormatError extends TlogError {
  readonly code = 'note-format';
}

/** A well-formed note whose signatures do not make it trusted (C2SP signed-note "Signatures"). */
abstract class NoteSignatureError extends TlogError {}

/** A signature by a known key (same name and key ID) that does not verify: the note is forged or altered. */
export class BadSignatureError extends NoteSignatureError {
  readonly code = 'bad-signature';
}

/** The note is signed under a known key name, but by a different key (another key ID). */
export class WrongKeyError extends NoteSignatureError {
  readonly code = 'wrong-key';
}

/** No signature is under any known key name. */
export class UnknownKeyError extends NoteSignatureError {
  readonly code = 'unknown-key';
}

/** A note text that is not a C2SP tlog-checkpoint body. */
export class CheckpointFormatError extends TlogError {
  readonly code = 'checkpoint-format';
}

/** A verified checkpoint from another log: its origin line is not the expected one. */
export class CheckpointOriginError extends TlogError {
  readonly code = 'checkpoint-origin';
}

/** A text that is not a C2SP tlog-proof (`c2sp.org/tlog-proof@v1`). */
export class TlogProofFormatError extends TlogError {
  readonly code = 'tlog-proof-format';
}
