import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest, type ReplyOf } from '@world/contracts';
import { REPLICA } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';

/** `ledger.health`: this replica answers (readiness of the transport and the handler). */
@Controller()
export class HealthController {
  constructor(@Inject(REPLICA) private readonly replica: string) {}

  @MessagePattern('ledger.health')
  health(@Payload() data: unknown): ReplyOf<'ledger.health'> {
    parseRequest('ledger.health', data ?? {});
    return { service: LEDGER_SERVICE, status: 'ok', replica: this.replica };
  }
}
