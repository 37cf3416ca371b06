import { Controller, Get } from '@nestjs/common';
import { ReadHealth, type HealthView } from './read-health.js';

/** GET /v1/health: always open (world-spec §5.2). */
@Controller()
export class HealthController {
  constructor(private readonly readHealth: ReadHealth) {}

  @Get('v1/health')
  health(): Promise<HealthView> {
    return this.readHealth.execute();
  }
}
