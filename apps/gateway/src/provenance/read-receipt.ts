import { BadRequestError, READ_DEADLINE_MS } from '@world/contracts';
import type { RpcClient } from '@world/runtime';

/** The exact 400 text for a receipt id outside the REST namespace (world-spec §5.11). */
export const RECEIPT_ID_MESSAGE = 'receipt id must be rest:<id>';
const REST_PREFIX = 'rest:';

/** A receipt as GET /v1/receipts/{id} serves it (world-spec §5.11). */
export interface ReceiptView {
  invocationId: string;
  state: 'not-started' | 'indeterminate' | 'resolved';
  resultRef?: string;
}

/**
 * GET /v1/receipts/{id}: only `rest:` ids — tool-call and effect journals are not reachable here
 * (world-spec §5.11, §11 scenario 7).
 * @throws BadRequestError `receipt id must be rest:<id>`
 */
export async function readReceipt(rpc: RpcClient, id: string): Promise<ReceiptView> {
  if (!id.startsWith(REST_PREFIX) || id.length === REST_PREFIX.length)
    throw new BadRequestError(RECEIPT_ID_MESSAGE);
  const reply = await rpc.request(
    'ledger.receipt.get',
    { invocationId: id },
    { timeoutMs: READ_DEADLINE_MS },
  );
  const view: ReceiptView = { invocationId: reply.invocationId, state: reply.state };
  if (reply.resultRef !== undefined) view.resultRef = reply.resultRef;
  return view;
}
