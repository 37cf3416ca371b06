import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { getHead, getLogEntry, getWorld, listLog } from './read-log.js';
import { getObject, listObjectsBySemanticId } from './read-objects.js';
import { ReadsRepository } from './reads.repository.js';

/** The read subjects: head, worlds, objects, log entries and pages. */
@Controller()
export class ReadsController {
  constructor(private readonly repository: ReadsRepository) {}

  @MessagePattern('ledger.head')
  head(@Payload() data: unknown) {
    parseRequest('ledger.head', data ?? {});
    return getHead(this.repository);
  }

  @MessagePattern('ledger.world.get')
  world(@Payload() data: unknown) {
    return getWorld(this.repository, parseRequest('ledger.world.get', data));
  }

  @MessagePattern('ledger.object.get')
  object(@Payload() data: unknown) {
    return getObject(this.repository, parseRequest('ledger.object.get', data));
  }

  @MessagePattern('ledger.objects.bySemanticId')
  objectsBySemanticId(@Payload() data: unknown) {
    return listObjectsBySemanticId(
      this.repository,
      parseRequest('ledger.objects.bySemanticId', data),
    );
  }

  @MessagePattern('ledger.log.entry')
  entry(@Payload() data: unknown) {
    return getLogEntry(this.repository, parseRequest('ledger.log.entry', data));
  }

  @MessagePattern('ledger.log.range')
  range(@Payload() data: unknown) {
    return listLog(this.repository, parseRequest('ledger.log.range', data));
  }
}
