import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { ListUnrecorded, ReadTimeline, ReadTimelineRate } from './read-timeline.js';

/** The timeline index reads: `ledger.timeline`, `.unrecorded`, `.rate` (read-timeline.ts). */
@Controller()
export class TimelineController {
  constructor(
    private readonly readTimeline: ReadTimeline,
    private readonly readTimelineRate: ReadTimelineRate,
    private readonly listUnrecorded: ListUnrecorded,
  ) {}

  @MessagePattern('ledger.timeline')
  page(@Payload() data: unknown) {
    return this.readTimeline.execute(parseRequest('ledger.timeline', data));
  }

  @MessagePattern('ledger.timeline.rate')
  rate(@Payload() data: unknown) {
    return this.readTimelineRate.execute(parseRequest('ledger.timeline.rate', data));
  }

  @MessagePattern('ledger.timeline.unrecorded')
  unrecorded(@Payload() data: unknown) {
    return this.listUnrecorded.execute(parseRequest('ledger.timeline.unrecorded', data));
  }
}
