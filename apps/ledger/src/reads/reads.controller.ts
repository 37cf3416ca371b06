import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { GetHead, GetLogEntry, GetWorld, ListLog } from './read-log.js';
import { LocateEntry } from './locate-entry.js';
import { GetObject, ListObjectsBySemanticId } from './read-objects.js';

/** The read subjects: head, worlds, objects, log entries, pages and located targets. */
@Controller()
export class ReadsController {
  constructor(
    private readonly getHead: GetHead,
    private readonly getWorld: GetWorld,
    private readonly getObject: GetObject,
    private readonly listObjectsBySemanticId: ListObjectsBySemanticId,
    private readonly getLogEntry: GetLogEntry,
    private readonly listLog: ListLog,
    private readonly locateEntry: LocateEntry,
  ) {}

  @MessagePattern('ledger.head')
  head(@Payload() data: unknown) {
    parseRequest('ledger.head', data ?? {});
    return this.getHead.execute();
  }

  @MessagePattern('ledger.world.get')
  world(@Payload() data: unknown) {
    return this.getWorld.execute(parseRequest('ledger.world.get', data));
  }

  @MessagePattern('ledger.object.get')
  object(@Payload() data: unknown) {
    return this.getObject.execute(parseRequest('ledger.object.get', data));
  }

  @MessagePattern('ledger.objects.bySemanticId')
  objectsBySemanticId(@Payload() data: unknown) {
    return this.listObjectsBySemanticId.execute(parseRequest('ledger.objects.bySemanticId', data));
  }

  @MessagePattern('ledger.log.entry')
  entry(@Payload() data: unknown) {
    return this.getLogEntry.execute(parseRequest('ledger.log.entry', data));
  }

  @MessagePattern('ledger.log.locate')
  locate(@Payload() data: unknown) {
    return this.locateEntry.execute(parseRequest('ledger.log.locate', data));
  }

  @MessagePattern('ledger.log.range')
  range(@Payload() data: unknown) {
    return this.listLog.execute(parseRequest('ledger.log.range', data));
  }
}
