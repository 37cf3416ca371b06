import { Controller, Injectable } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { encodeBase64 } from '@world/canonical';
import { NotFoundError, parseRequest, type ReplyOf } from '@world/contracts';
import { ObjectsRepository } from './objects.repository.js';

/**
 * `broker.object.get`: serves the broker's objects, so refs of effects whose invocation never
 * committed still resolve (DESIGN.md §3). The payload (base64) only when asked for.
 */
@Injectable()
export class GetObject {
  constructor(private readonly objects: ObjectsRepository) {}

  /** @throws NotFoundError when the broker holds no such object */
  async execute(ref: string, withPayload: boolean): Promise<ReplyOf<'broker.object.get'>> {
    const object = await this.objects.get(ref);
    if (object === null) throw new NotFoundError(`object ${ref} not found`);
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
    const request = parseRequest('broker.object.get', data);
    return this.getObject.execute(request.ref, request.payload);
  }
}
