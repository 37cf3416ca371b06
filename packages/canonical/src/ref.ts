import { createHash } from 'node:crypto';

/** A content address: `sha256:` + 64 lowercase hex of the payload bytes (DESIGN.md §4). */
export type Ref = `sha256:${string}`;

/** The only registered algorithm tag (world-internals §4). */
const REF_ALGORITHM = 'sha256';
const DIGEST_WIDTH = 64;
/**
 * The zero ref: syntactically valid but never a real object; refused wherever a write needs one.
 * @internal exported for ref.spec.ts, apps/ledger/test/integration/ledger.int-spec.ts
 */
export const ZERO_REF: Ref = `sha256:${'0'.repeat(DIGEST_WIDTH)}`;

/** A ref text that the strict parser refused; `field` names the input it came from. */
export class InvalidRefError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InvalidRefError';
  }
}

/** Lowercase hex sha256 digest of bytes or of a UTF-8 string. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The ref of bytes (or of a UTF-8 string's bytes): `sha256:<hex>`. */
export function refOf(data: Uint8Array | string): Ref {
  return `sha256:${sha256Hex(data)}`;
}

/**
 * Why a text is not a ref, or null when it is one. The checks and their order follow
 * world-internals §4: empty text, missing or extra colon, empty or unknown algorithm,
 * wrong width, non-lowercase-hex digest; the zero ref unless `allowZero`.
 */
export function refProblem(text: unknown, allowZero = false): string | null {
  if (typeof text !== 'string') return 'must be a string';
  if (text === '') return 'is empty';
  const parts = text.split(':');
  if (parts.length < 2) return 'has no algorithm (expected sha256:<64 lowercase hex>)';
  if (parts.length > 2) return 'has more than one colon';
  const [algorithm, digest] = parts as [string, string];
  if (algorithm === '') return 'has an empty algorithm';
  if (algorithm !== REF_ALGORITHM) return `has unknown algorithm "${algorithm}"`;
  if (digest.length !== DIGEST_WIDTH) return `digest must be ${DIGEST_WIDTH} hex characters`;
  if (!/^[0-9a-f]+$/.test(digest)) {
    return /^[0-9a-fA-F]+$/.test(digest) ? 'digest must be lowercase hex' : 'digest must be hex';
  }
  if (!allowZero && text === ZERO_REF) return 'is the zero ref';
  return null;
}

/**
 * Parses a ref strictly.
 * @param text candidate ref text
 * @param field name of the input, used in the error
 * @param options allowZero admits ZERO_REF (never for writes)
 * @throws InvalidRefError naming the field and the problem
 */
export function parseRef(text: unknown, field = 'ref', options: { allowZero?: boolean } = {}): Ref {
  const problem = refProblem(text, options.allowZero ?? false);
  if (problem !== null) throw new InvalidRefError(field, problem);
  return text as Ref;
}

/** True when `text` is a real (non-zero) ref. */
export function isRef(text: unknown): text is Ref {
  return refProblem(text) === null;
}
