import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { TimelineRepository } from './timeline.js';

/** The timeline index reads: `ledger.timeline`, `.unrecorded`, `.rate` (timeline.ts). */
@Controller()
export class TimelineController {
  constructor(private readonly repository: TimelineRepository) {}

  @MessagePattern('ledger.timeline')
  page(@Payload() data: unknown) {
    return this.repository.page(parseRequest('ledger.timeline', data));
  }

  @MessagePattern('ledger.timeline.rate')
  rate(@Payload() data: unknown) {
    return this.repository.rate(parseRequest('ledger.timeline.rate', data));
  }

  @MessagePattern('ledger.timeline.unrecorded')
  unrecorded(@Payload() data: unknown) {
    return this.repository.unrecorded(parseRequest('ledger.timeline.unrecorded', data));
  }
}
