/**
 * Receipts: the replica that takes a request acknowledges it to its caller before it acts on it,
 * and acts only if the caller still waits (SubjectContract.receipt). A caller that stopped
 * waiting (it answered its own client already) refuses a late receipt, so the request never
 * runs behind an answer that said it did not (DESIGN.md §2; world-spec §4.5, §6.5;
 * world-internals §5.5). Both transports carry it on the request's own reply path: NATS as a
 * request to the caller's reply inbox, the in-process bus as a call back into the caller.
 */
import { CONTRACTS, type ReceiptOf, type ReceiptSubject } from '@world/contracts';
import { logger } from './logger.js';
import { callContext, type ReceiptChannel } from './trace.js';

/**
 * Acknowledges the request being served (the current call context's) with `receipt` and
 * resolves whether to act on it. A request whose caller asked for no receipt goes on at once;
 * a second call answers as the first did (the receipt is sent once).
 * @returns false when the caller refused the receipt (it no longer waits), is gone, or did not
 *   answer within the transport's receipt bound — the request must then not be acted on
 */
export function confirmReceipt<S extends ReceiptSubject>(
  _subject: S,
  receipt: ReceiptOf<S>,
): Promise<boolean> {
  const channel = callContext()?.receipt;
  return channel === undefined ? Promise.resolve(true) : channel(receipt);
}

/**
 * A channel that sends its receipt once, through `send`, and answers every call as the first.
 * @param send resolves whether the caller still waits; a rejection counts as no
 */
export function onceReceiptChannel(send: (receipt: unknown) => Promise<boolean>): ReceiptChannel {
  let answer: Promise<boolean> | undefined;
  return (receipt) => (answer ??= send(receipt).catch(() => false));
}

/**
 * The caller's side of a receipt: whether the replica may act on the request. A receipt off the
 * subject's receipt schema is refused (logged); a request sent without `onReceipt` lets its
 * taker go on.
 * @param onReceipt the caller's decision (RequestOptions.onReceipt)
 */
export function acceptReceipt(
  subject: string,
  receipt: unknown,
  onReceipt: ((receipt: never) => boolean) | undefined,
): boolean {
  if (onReceipt === undefined) return true;
  const schema = (CONTRACTS as Record<string, { receipt?: { safeParse(v: unknown): unknown } }>)[
    subject
  ]?.receipt;
  const parsed = schema?.safeParse(receipt) as { success: boolean; data?: unknown } | undefined;
  if (parsed?.success !== true) {
    logger.warn({ subject }, 'refused a receipt off its schema');
    return false;
  }
  return onReceipt(parsed.data as never);
}
