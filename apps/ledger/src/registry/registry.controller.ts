import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { getRegistryHead, publishRegistryHead } from './registry-heads.js';
import { RegistryRepository } from './registry.repository.js';

/** `ledger.registry.get` and `ledger.registry.publish`. */
@Controller()
export class RegistryController {
  constructor(private readonly repository: RegistryRepository) {}

  @MessagePattern('ledger.registry.get')
  get(@Payload() data: unknown) {
    return getRegistryHead(this.repository, parseRequest('ledger.registry.get', data));
  }

  @MessagePattern('ledger.registry.publish')
  publish(@Payload() data: unknown) {
    return publishRegistryHead(this.repository, parseRequest('ledger.registry.publish', data));
  }
}
