import { Controller, Injectable } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { encodeBase64 } from '@world/canonical';
import {
  confinementOf,
  NotFoundError,
  parseRequest,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { ObjectsRepository } from './objects.repository.js';

/**
 * `broker.object.get`: serves the broker's objects, so refs of effects whose invocation never
 * committed still resolve (DESIGN.md §3). The payload (base64) only when asked for, re-hashed
 * before it is served. A scope confined to an episode reads only that episode's effects' objects.
 */
@Injectable()
export class GetObject {
  constructor(private readonly objects: ObjectsRepository) {}

  /**
   * @throws NotFoundError when the broker holds no such object, or not the scope's to read
   * @throws StoredObjectCorruptError when the stored payload does not hash to the ref
   */
  async execute(
    request: ParsedRequestOf<'broker.object.get'>,
  ): Promise<ReplyOf<'broker.object.get'>> {
    const { ref, payload: withPayload } = request;
    const object = await this.objects.get(ref, confinementOf(request.scope, 'object'));
    if (object === null) throw new NotFoundError(`object ${ref} not found`);
    if (withPayload) verifyStored('broker', { kind: 'object', ref, payload: object.payload });
    const head = {
      hash: object.hash,
      interfaceHash: object.interfaceHash,
      semanticId: object.semanticId,
      provenance: object.provenance,
    };
    return withPayload ? { ...head, payload: encodeBase64(object.payload) } : head;
  }
}

@Controller()
export class ObjectsController {
  constructor(private readonly getObject: GetObject) {}

  @MessagePattern('broker.object.get')
  get(@Payload() data: unknown) {
    return this.getObject.execute(parseRequest('broker.object.get', data));
  }
}
