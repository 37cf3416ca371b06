import { Inject, Injectable } from '@nestjs/common';
import { parseRef } from '@world/canonical';
import {
  BadRequestError,
  NotFoundError,
  READ_DEADLINE_MS,
  SEMANTIC_IDS,
  type ReadScope,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
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
 * The objects the ledger and the broker hold, as `/v1/objects` and `/v1/effects` serve them, in
 * the caller's read scope (DESIGN.md §3).
 */
@Injectable()
export class ReadObjects {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * GET /v1/objects/{ref}[?payload=true] (world-spec §5.5). The ledger holds every object a commit
   * carried; a ref it lacks may be an object of an effect that never reached a commit (request,
   * result or record of an EffectsUnrecorded call), which only the broker holds (DESIGN.md §3).
   * Both read in the caller's scope: an object it may not read is 404 like an absent one.
   * @param scope the caller's read scope (readScopeOf)
   * @param withPayload true for `?payload=true`
   * @throws BadRequest-mapped InvalidRefError naming `ref`; NotFoundError `object not found`;
   *   StoredObjectCorruptError when the stored bytes do not hash to the ref
   */
  async object(scope: ReadScope, refText: string, withPayload: boolean): Promise<ObjectView> {
    const ref = parseRef(refText, 'ref');
    const request = { ref, payload: withPayload, scope };
    let found;
    try {
      found = await this.rpc.request('ledger.object.get', request, { timeoutMs: READ_DEADLINE_MS });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      found = await orNotFound(
        this.rpc.request('broker.object.get', request, { timeoutMs: READ_DEADLINE_MS }),
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
   * GET /v1/effects/{ref}: the broker's own effect record of this ref, from the broker's store
   * alone (DESIGN.md §3): what `world why` checks an entry's effect records against, so a record
   * the broker never wrote is never called verified. Envelope only; the payload is the ledger's
   * (same ref, same bytes).
   * @param scope the caller's read scope (readScopeOf)
   * @throws BadRequest-mapped InvalidRefError naming `ref`; NotFoundError `effect record not found`
   *   (the broker holds none, it is not an effect record, or not the scope's to read)
   */
  async brokerRecord(scope: ReadScope, refText: string): Promise<ObjectView> {
    const ref = parseRef(refText, 'ref');
    const found = await orNotFound(
      this.rpc.request(
        'broker.object.get',
        { ref, payload: false, scope },
        { timeoutMs: READ_DEADLINE_MS },
      ),
      NOT_FOUND.effectRecord,
    );
    if (found.semanticId !== SEMANTIC_IDS.effectRecord)
      throw new NotFoundError(NOT_FOUND.effectRecord);
    return {
      hash: found.hash,
      interfaceHash: found.interfaceHash,
      semanticId: found.semanticId,
      provenance: found.provenance,
    };
  }

  /**
   * GET /v1/objects/by-semantic-id/{name...}?after=&limit= (world-spec §5.6): envelopes in
   * ascending hash order, never payloads; an unknown name is an empty page. Only what the caller's
   * scope may read is listed.
   * @throws BadRequestError for an empty name, a malformed `after` (named), a non-integer `limit`
   */
  async bySemanticId(
    scope: ReadScope,
    name: string,
    after: QueryValue,
    limit: QueryValue,
  ): Promise<{ items: ObjectView[] }> {
    if (name === '') throw new BadRequestError('semantic id must not be empty');
    const pageLimit = parsePageLimit(limit);
    const afterRef = after === undefined ? undefined : parseRef(after, 'after');
    const reply = await this.rpc.request(
      'ledger.objects.bySemanticId',
      {
        scope,
        semanticId: name,
        limit: pageLimit,
        ...(afterRef !== undefined && { after: afterRef }),
      },
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
}
