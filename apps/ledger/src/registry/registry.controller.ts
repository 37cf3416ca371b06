import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { GetRegistryHead, PublishRegistryHead } from './registry-heads.js';

/** `ledger.registry.get` and `ledger.registry.publish`. */
@Controller()
export class RegistryController {
  constructor(
    private readonly getRegistryHead: GetRegistryHead,
    private readonly publishRegistryHead: PublishRegistryHead,
  ) {}

  @MessagePattern('ledger.registry.get')
  get(@Payload() data: unknown) {
    return this.getRegistryHead.execute(parseRequest('ledger.registry.get', data));
  }

  @MessagePattern('ledger.registry.publish')
  publish(@Payload() data: unknown) {
    return this.publishRegistryHead.execute(parseRequest('ledger.registry.publish', data));
  }
}
