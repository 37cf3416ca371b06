import { canonicalBytes } from './jcs.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import { parseRef, refOf, type Ref } from './ref.js';

/**
 * A content-addressed object: `hash` = sha256(payload); the envelope fields are not hashed
 * (world-spec §2.13, world-internals §4).
 */
export interface WorldObject {
  hash: Ref;
  interfaceHash: Ref;
  semanticId: string;
  provenance: string;
  payload: Buffer;
}

/** The wire and REST form of an object: the payload is standard base64. */
export interface WireObject {
  hash: Ref;
  interfaceHash: Ref;
  semanticId: string;
  provenance: string;
  payload: string;
}

/** An object whose payload does not hash to its `hash`. */
export class ObjectHashMismatchError extends Error {
  constructor(
    readonly claimed: string,
    readonly actual: Ref,
  ) {
    super(`object hash ${claimed} does not match its payload (sha256 ${actual})`);
    this.name = 'ObjectHashMismatchError';
  }
}

/** An envelope field that is not acceptable (semantic id or provenance). */
export class InvalidEnvelopeError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InvalidEnvelopeError';
  }
}

const SEMANTIC_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$/;
const MAX_PROVENANCE = 256;

/** Interface hash of the objects World writes: sha256 of the semantic id text (world-internals §3.2). */
export function interfaceHashOf(semanticId: string): Ref {
  return refOf(semanticId);
}

/**
 * Builds an object over raw payload bytes.
 * @throws InvalidEnvelopeError for a malformed semantic id or provenance
 */
export function makeObject(
  semanticId: string,
  provenance: string,
  payload: Uint8Array,
): WorldObject {
  checkEnvelope(semanticId, provenance);
  const bytes = Buffer.from(payload);
  return {
    hash: refOf(bytes),
    interfaceHash: interfaceHashOf(semanticId),
    semanticId,
    provenance,
    payload: bytes,
  };
}

/** Builds an object whose payload is the RFC 8785 canonical JSON of `value`. */
export function makeJsonObject(
  semanticId: string,
  provenance: string,
  value: unknown,
): WorldObject {
  return makeObject(semanticId, provenance, canonicalBytes(value));
}

/**
 * Checks that an object's hash equals sha256(payload) and its envelope is well formed.
 * @throws ObjectHashMismatchError, InvalidEnvelopeError, InvalidRefError
 * @internal exported for envelope.spec.ts
 */
export function verifyObject(object: WorldObject): WorldObject {
  parseRef(object.hash, 'hash');
  parseRef(object.interfaceHash, 'interfaceHash');
  checkEnvelope(object.semanticId, object.provenance);
  const actual = refOf(object.payload);
  if (actual !== object.hash) throw new ObjectHashMismatchError(object.hash, actual);
  return object;
}

/** The wire form of an object (payload as base64). */
export function toWireObject(object: WorldObject): WireObject {
  return {
    hash: object.hash,
    interfaceHash: object.interfaceHash,
    semanticId: object.semanticId,
    provenance: object.provenance,
    payload: encodeBase64(object.payload),
  };
}

/**
 * Decodes and verifies a wire object.
 * @throws InvalidBase64Error, InvalidRefError, ObjectHashMismatchError, InvalidEnvelopeError
 */
export function fromWireObject(wire: WireObject, field = 'object'): WorldObject {
  return verifyObject({
    hash: parseRef(wire.hash, `${field}.hash`),
    interfaceHash: parseRef(wire.interfaceHash, `${field}.interfaceHash`),
    semanticId: wire.semanticId,
    provenance: wire.provenance,
    payload: decodeBase64(wire.payload, `${field}.payload`),
  });
}

/** Parses an object's payload as JSON (objects World writes are canonical JSON). */
export function objectJson<T = unknown>(object: Pick<WorldObject, 'payload'>): T {
  return JSON.parse(object.payload.toString('utf8')) as T;
}

function checkEnvelope(semanticId: string, provenance: string): void {
  if (typeof semanticId !== 'string' || !SEMANTIC_ID.test(semanticId)) {
    throw new InvalidEnvelopeError('semanticId', 'must be 1-256 characters of [A-Za-z0-9._:/-]');
  }
  if (typeof provenance !== 'string' || provenance.length > MAX_PROVENANCE) {
    throw new InvalidEnvelopeError(
      'provenance',
      `must be a string of at most ${MAX_PROVENANCE} characters`,
    );
  }
}
