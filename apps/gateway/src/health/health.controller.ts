import { Controller, Get, Inject } from '@nestjs/common';
import { GATEWAY, type GatewayContext } from '../gateway.tokens.js';
import { readHealth, type HealthView } from './read-health.js';

/** GET /v1/health: always open (world-spec §5.2). */
@Controller()
export class HealthController {
  constructor(@Inject(GATEWAY) private readonly gateway: GatewayContext) {}

  @Get('v1/health')
  health(): Promise<HealthView> {
    return readHealth(this.gateway.rpc, this.gateway.dbPath);
  }
}
