/**
 * Reads of content-addressed objects: `ledger.object.get` and `ledger.objects.bySemanticId`
 * (world-spec §5.5, §5.6).
 */
import { encodeBase64 } from '@world/canonical';
import { confinementOf, NotFoundError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { pageLimit } from './paging.js';
import type { ReadsRepository } from './reads.repository.js';

/**
 * One object: envelope, plus its payload as base64 only when `payload` is true (the key is
 * absent otherwise; world-spec §5.5). The payload is re-hashed before it is served (DESIGN.md §3).
 * A scope confined to an episode reads only that episode's and the published objects.
 * @throws NotFoundError 'object not found' (absent, or not the scope's to read)
 * @throws StoredObjectCorruptError when the stored payload does not hash to the ref
 */
export async function getObject(
  repository: ReadsRepository,
  request: ParsedRequestOf<'ledger.object.get'>,
): Promise<ReplyOf<'ledger.object.get'>> {
  const episode = confinementOf(request.scope, 'object');
  const object = await repository.object(request.ref, request.payload, episode);
  if (object === null) throw new NotFoundError('object not found');
  const { payload, ...head } = object;
  if (payload === undefined) return head;
  verifyStored(LEDGER_SERVICE, { kind: 'object', ref: object.hash, payload });
  return { ...head, payload: encodeBase64(payload) };
}

/**
 * Objects of one semantic id, ascending by hash, strictly after `after`, limit clamped by
 * pageLimit; never payloads; an unknown id gives no items (world-spec §5.6). A scope confined to
 * an episode lists only what it may read (getObject).
 */
export async function listObjectsBySemanticId(
  repository: ReadsRepository,
  request: ParsedRequestOf<'ledger.objects.bySemanticId'>,
): Promise<ReplyOf<'ledger.objects.bySemanticId'>> {
  return {
    items: await repository.objectsBySemanticId(
      request.semanticId,
      request.after,
      pageLimit(request.limit),
      confinementOf(request.scope, 'object'),
    ),
  };
}
