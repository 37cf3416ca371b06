/**
 * Reads of content-addressed objects: `ledger.object.get` and `ledger.objects.bySemanticId`
 * (world-spec §5.5, §5.6). A scope confined to an episode reads only that episode's and the
 * published objects (reads/ownership.ts).
 */
import { Injectable } from '@nestjs/common';
import { encodeBase64 } from '@world/canonical';
import { confinementOf, NotFoundError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { pageLimit } from './paging.js';
import { ReadsRepository } from './reads.repository.js';

/** `ledger.object.get`: one object. */
@Injectable()
export class GetObject {
  constructor(private readonly reads: ReadsRepository) {}

  /**
   * One object: envelope, plus its payload as base64 only when `payload` is true (the key is
   * absent otherwise; world-spec §5.5). The payload is re-hashed before it is served (DESIGN.md
   * §3).
   * @throws NotFoundError 'object not found' (absent, or not the scope's to read)
   * @throws StoredObjectCorruptError when the stored payload does not hash to the ref
   */
  async execute(
    request: ParsedRequestOf<'ledger.object.get'>,
  ): Promise<ReplyOf<'ledger.object.get'>> {
    const episode = confinementOf(request.scope, 'object');
    const object = await this.reads.object(request.ref, request.payload, episode);
    if (object === null) throw new NotFoundError('object not found');
    const { payload, ...head } = object;
    if (payload === undefined) return head;
    verifyStored(LEDGER_SERVICE, { kind: 'object', ref: object.hash, payload });
    return { ...head, payload: encodeBase64(payload) };
  }
}

/** `ledger.objects.bySemanticId`: a page of one semantic id's objects. */
@Injectable()
export class ListObjectsBySemanticId {
  constructor(private readonly reads: ReadsRepository) {}

  /**
   * Objects of one semantic id, ascending by hash, strictly after `after`, limit clamped by
   * pageLimit; never payloads; an unknown id gives no items (world-spec §5.6).
   */
  async execute(
    request: ParsedRequestOf<'ledger.objects.bySemanticId'>,
  ): Promise<ReplyOf<'ledger.objects.bySemanticId'>> {
    return {
      items: await this.reads.objectsBySemanticId(
        request.semanticId,
        request.after,
        pageLimit(request.limit),
        confinementOf(request.scope, 'object'),
      ),
    };
  }
}
