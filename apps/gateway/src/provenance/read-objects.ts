import { parseRef } from '@world/canonical';
import { BadRequestError, NotFoundError, READ_DEADLINE_MS } from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { NOT_FOUND, orNotFound } from './not-found.js';
import { parsePageLimit, type QueryValue } from './paging.js';

/** An object as GET /v1/objects/{ref} serves it: `payload` (base64) only when asked for. */
export interface ObjectView {
  hash: string;
  interfaceHash: string;
  semanticId: string;
  provenance: string;
  payload?: string;
}

/**
 * GET /v1/objects/{ref}[?payload=true] (world-spec §5.5). The ledger holds every object a commit
 * carried; a ref it lacks may be an object of an effect that never reached a commit (request,
 * result or record of an EffectsUnrecorded call), which only the broker holds (DESIGN.md §3).
 * @param withPayload true for `?payload=true`
 * @throws BadRequest-mapped InvalidRefError naming `ref`; NotFoundError `object not found`
 */
export async function readObject(
  rpc: RpcClient,
  refText: string,
  withPayload: boolean,
): Promise<ObjectView> {
  const ref = parseRef(refText, 'ref');
  const request = { ref, payload: withPayload };
  let found;
  try {
    found = await rpc.request('ledger.object.get', request, { timeoutMs: READ_DEADLINE_MS });
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    found = await orNotFound(
      rpc.request('broker.object.get', request, { timeoutMs: READ_DEADLINE_MS }),
      NOT_FOUND.object,
    );
  }
  const view: ObjectView = {
    hash: found.hash,
    interfaceHash: found.interfaceHash,
    semanticId: found.semanticId,
    provenance: found.provenance,
  };
  if (withPayload) view.payload = found.payload ?? '';
  return view;
}

/**
 * GET /v1/objects/by-semantic-id/{name...}?after=&limit= (world-spec §5.6): envelopes in
 * ascending hash order, never payloads; an unknown name is an empty page.
 * @throws BadRequestError for an empty name, a malformed `after` (named), a non-integer `limit`
 */
export async function listObjectsBySemanticId(
  rpc: RpcClient,
  name: string,
  after: QueryValue,
  limit: QueryValue,
): Promise<{ items: ObjectView[] }> {
  if (name === '') throw new BadRequestError('semantic id must not be empty');
  const pageLimit = parsePageLimit(limit);
  const afterRef = after === undefined ? undefined : parseRef(after, 'after');
  const reply = await rpc.request(
    'ledger.objects.bySemanticId',
    { semanticId: name, limit: pageLimit, ...(afterRef !== undefined && { after: afterRef }) },
    { timeoutMs: READ_DEADLINE_MS },
  );
  return {
    items: reply.items.map((o) => ({
      hash: o.hash,
      interfaceHash: o.interfaceHash,
      semanticId: o.semanticId,
      provenance: o.provenance,
    })),
  };
}
