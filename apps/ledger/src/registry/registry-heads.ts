/**
 * Registry heads: named pointers to objects (`world/epoch-registry/v1`,
 * `world/transition-registry/v1`, `world/approvals/v1`; world-spec §5.9).
 */
import { Injectable } from '@nestjs/common';
import { NotFoundError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import { verifyWireObject } from '../commit/chain.js';
import { RegistryRepository } from './registry.repository.js';

/** `ledger.registry.get`: the object a named head points at. */
@Injectable()
export class GetRegistryHead {
  constructor(private readonly registry: RegistryRepository) {}

  /** @throws NotFoundError 'registry head not found' */
  async execute(
    request: ParsedRequestOf<'ledger.registry.get'>,
  ): Promise<ReplyOf<'ledger.registry.get'>> {
    const head = await this.registry.head(request.name);
    if (head === null) throw new NotFoundError('registry head not found');
    return { name: request.name, head };
  }
}

/** `ledger.registry.publish`: moves a named head to an object. */
@Injectable()
export class PublishRegistryHead {
  constructor(private readonly registry: RegistryRepository) {}

  /**
   * Stores the object (and the objects it names, `objects`) and moves the named head to it, all
   * in one transaction; changed:false when the head already pointed there.
   * @throws BadRequestError when an object's payload does not hash to its hash, or a ref or the
   *   envelope is malformed (naming `object.…` / `objects[i].…`); nothing is stored then
   */
  async execute(
    request: ParsedRequestOf<'ledger.registry.publish'>,
  ): Promise<ReplyOf<'ledger.registry.publish'>> {
    const object = verifyWireObject(request.object, 'object');
    const archived = (request.objects ?? []).map((o, i) => verifyWireObject(o, `objects[${i}]`));
    const changed = await this.registry.publish(request.name, object, archived);
    return { name: request.name, head: object.hash, changed };
  }
}
