/**
 * Registry heads: named pointers to objects (`world/epoch-registry/v1`,
 * `world/transition-registry/v1`, `world/approvals/v1`; world-spec §5.9).
 */
import { NotFoundError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import { verifyWireObject } from '../commit/chain.js';
import type { RegistryRepository } from './registry.repository.js';

/**
 * `ledger.registry.get`: the object a named head points at.
 * @throws NotFoundError 'registry head not found'
 */
export async function getRegistryHead(
  repository: RegistryRepository,
  request: ParsedRequestOf<'ledger.registry.get'>,
): Promise<ReplyOf<'ledger.registry.get'>> {
  const head = await repository.head(request.name);
  if (head === null) throw new NotFoundError('registry head not found');
  return { name: request.name, head };
}

/**
 * `ledger.registry.publish`: stores the object (and the objects it names, `objects`) and moves
 * the named head to it, all in one transaction; changed:false when the head already pointed there.
 * @throws BadRequestError when an object's payload does not hash to its hash, or a ref or the
 *   envelope is malformed (naming `object.…` / `objects[i].…`); nothing is stored then
 */
export async function publishRegistryHead(
  repository: RegistryRepository,
  request: ParsedRequestOf<'ledger.registry.publish'>,
): Promise<ReplyOf<'ledger.registry.publish'>> {
  const object = verifyWireObject(request.object, 'object');
  const archived = (request.objects ?? []).map((o, i) => verifyWireObject(o, `objects[${i}]`));
  const changed = await repository.publish(request.name, object, archived);
  return { name: request.name, head: object.hash, changed };
}
