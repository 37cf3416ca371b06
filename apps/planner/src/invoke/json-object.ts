import {
  canonicalBytes,
  canonicalJson,
  canonicalObjectOf,
  makeObject,
  refOf,
  sha256Hex,
  type Ref,
  type WorldObject,
} from '@world/canonical';

/** Interface hash of each checked envelope, by `<semantic id>\n<provenance>`. */
const envelopes = new Map<string, Ref>();
/** The envelopes are World's own semantic ids × the coordinator identities: a handful. */
const MAX_ENVELOPES = 64;
const NO_BYTES = Buffer.alloc(0);

/**
 * The object @world/canonical's makeJsonObject(semanticId, provenance, value) makes — the same
 * fields, bytes and refs — for the planner's per-call objects: the envelope is checked and its
 * interface hash (sha256 of the semantic id) taken once per semantic id and provenance instead of
 * once per object, and the canonical bytes are hashed and kept without another copy.
 * Source: world-spec §2.13, world-internals §3.2 and §4 (via @world/canonical).
 * @throws TypeError when the value is not canonical JSON (checked first, as makeJsonObject does);
 * InvalidEnvelopeError for a malformed semantic id or provenance
 */
export function jsonObject(semanticId: string, provenance: string, value: unknown): WorldObject {
  const payload = canonicalBytes(value);
  const key = `${semanticId}\n${provenance}`;
  let interfaceHash = envelopes.get(key);
  if (interfaceHash === undefined) {
    interfaceHash = makeObject(semanticId, provenance, NO_BYTES).interfaceHash;
    if (envelopes.size < MAX_ENVELOPES) envelopes.set(key, interfaceHash);
  }
  return { hash: refOf(payload), interfaceHash, semanticId, provenance, payload };
}

/**
 * The request hash of a keyed invocation: lowercase hex sha256 of the canonical JSON of
 * `{tool, arguments}` (RFC 8785), composed around the input object's canonical bytes (the
 * canonical JSON of the arguments, or of null) instead of canonicalizing the arguments a second
 * time (canonicalObjectOf).
 * @param toolId the tool id the call names
 * @param inputPayload canonical bytes of `arguments ?? null` (the invocation input's payload)
 */
export function requestHashOf(toolId: string, inputPayload: Buffer): string {
  return sha256Hex(
    canonicalObjectOf({ arguments: inputPayload.toString('utf8'), tool: canonicalJson(toolId) }),
  );
}
