import { Inject, Injectable } from '@nestjs/common';
import { BadRequestError, READ_DEADLINE_MS, type ReadScope } from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { NOT_FOUND, orNotFound } from './not-found.js';

/** The exact 400 text for a receipt id outside the REST namespace (world-spec §5.11). */
const RECEIPT_ID_MESSAGE = 'receipt id must be rest:<id>';
const REST_PREFIX = 'rest:';

/** A receipt as GET /v1/receipts/{id} serves it (world-spec §5.11). */
export interface ReceiptView {
  invocationId: string;
  state: 'not-started' | 'indeterminate' | 'resolved';
  resultRef?: string;
}

/** The receipts of REST commits, as GET /v1/receipts/{id} serves them (world-spec §5.11). */
@Injectable()
export class ReadReceipt {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * GET /v1/receipts/{id}: only `rest:` ids — tool-call and effect journals are not reachable here
   * (world-spec §5.11, §11 scenario 7). A session reads the receipts of its own episode's ids
   * (`rest:<episode>:<id>`, DESIGN.md §3); any other is 404 to it.
   * @param scope the caller's read scope (readScopeOf)
   * @throws BadRequestError `receipt id must be rest:<id>`; NotFoundError `receipt not found`;
   *   StoredObjectCorruptError when the journaled outcome does not match the stored chain
   */
  async execute(scope: ReadScope, id: string): Promise<ReceiptView> {
    if (!id.startsWith(REST_PREFIX) || id.length === REST_PREFIX.length)
      throw new BadRequestError(RECEIPT_ID_MESSAGE);
    const reply = await orNotFound(
      this.rpc.request(
        'ledger.receipt.get',
        { invocationId: id, scope },
        { timeoutMs: READ_DEADLINE_MS },
      ),
      NOT_FOUND.receipt,
    );
    const view: ReceiptView = { invocationId: reply.invocationId, state: reply.state };
    if (reply.resultRef !== undefined) view.resultRef = reply.resultRef;
    return view;
  }
}
