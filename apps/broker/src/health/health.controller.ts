import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InternalError, parseRequest } from '@world/contracts';
import { DATABASE, REPLICA, serviceLogger, type DatabaseHandle } from '@world/runtime';

const log = serviceLogger('broker');

/** `broker.health`: ok once the database answers one round trip. */
@Controller()
export class HealthController {
  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  /** @throws InternalError when the database does not answer (the cause goes to the log) */
  @MessagePattern('broker.health')
  async health(@Payload() data: unknown) {
    parseRequest('broker.health', data);
    try {
      await this.database.ping();
    } catch (err) {
      log.error({ err }, 'health: database did not answer');
      throw new InternalError();
    }
    return { service: 'broker', status: 'ok' as const, replica: this.replica };
  }
}
