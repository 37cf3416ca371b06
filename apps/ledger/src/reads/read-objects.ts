/**
 * Reads of content-addressed objects: `ledger.object.get` and `ledger.objects.bySemanticId`
 * (world-spec §5.5, §5.6).
 */
import { encodeBase64 } from '@world/canonical';
import { NotFoundError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import { pageLimit } from './paging.js';
import type { ReadsRepository } from './reads.repository.js';

/**
 * One object: envelope, plus its payload as base64 only when `payload` is true (the key is
 * absent otherwise; world-spec §5.5).
 * @throws NotFoundError 'object not found'
 */
export async function getObject(
  repository: ReadsRepository,
  request: ParsedRequestOf<'ledger.object.get'>,
): Promise<ReplyOf<'ledger.object.get'>> {
  const object = await repository.object(request.ref, request.payload);
  if (object === null) throw new NotFoundError('object not found');
  const { payload, ...head } = object;
  return payload === undefined ? head : { ...head, payload: encodeBase64(payload) };
}

/**
 * Objects of one semantic id, ascending by hash, strictly after `after`, limit clamped by
 * pageLimit; never payloads; an unknown id gives no items (world-spec §5.6).
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
    ),
  };
}
