import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseRequest } from '@world/contracts';
import { GetReceipt } from './get-receipt.js';
import { BeginInvocation, EndInvocation, GetInvocation } from './invocations.js';

/** Receipts and idempotent invocation claims: `ledger.receipt.get`, `ledger.invocation.*`. */
@Controller()
export class JournalController {
  constructor(
    private readonly getReceipt: GetReceipt,
    private readonly beginInvocation: BeginInvocation,
    private readonly getInvocation: GetInvocation,
    private readonly endInvocation: EndInvocation,
  ) {}

  @MessagePattern('ledger.receipt.get')
  receipt(@Payload() data: unknown) {
    return this.getReceipt.execute(parseRequest('ledger.receipt.get', data));
  }

  @MessagePattern('ledger.invocation.begin')
  begin(@Payload() data: unknown) {
    return this.beginInvocation.execute(parseRequest('ledger.invocation.begin', data));
  }

  @MessagePattern('ledger.invocation.get')
  get(@Payload() data: unknown) {
    return this.getInvocation.execute(parseRequest('ledger.invocation.get', data));
  }

  @MessagePattern('ledger.invocation.end')
  end(@Payload() data: unknown) {
    return this.endInvocation.execute(parseRequest('ledger.invocation.end', data));
  }
}
