import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { beginInvocation } from './begin-invocation.js';
import { endInvocation } from './end-invocation.js';
import { getInvocation } from './get-invocation.js';
import { getReceipt } from './get-receipt.js';
import { JournalRepository } from './journal.repository.js';

/** Receipts and idempotent invocation claims: `ledger.receipt.get`, `ledger.invocation.*`. */
@Controller()
export class JournalController {
  constructor(private readonly repository: JournalRepository) {}

  @MessagePattern('ledger.receipt.get')
  receipt(@Payload() data: unknown) {
    return getReceipt(this.repository, parseRequest('ledger.receipt.get', data));
  }

  @MessagePattern('ledger.invocation.begin')
  begin(@Payload() data: unknown) {
    return beginInvocation(this.repository, parseRequest('ledger.invocation.begin', data));
  }

  @MessagePattern('ledger.invocation.get')
  get(@Payload() data: unknown) {
    return getInvocation(this.repository, parseRequest('ledger.invocation.get', data).invocationId);
  }

  @MessagePattern('ledger.invocation.end')
  end(@Payload() data: unknown) {
    return endInvocation(this.repository, parseRequest('ledger.invocation.end', data));
  }
}
