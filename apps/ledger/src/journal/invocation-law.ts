/**
 * The laws of the commit journal as callers see it, written once: receipts (world-internals
 * §5.3 GetReceipt law) and idempotent invocation claims (A2A task ids, MCP `world/taskId`;
 * DESIGN.md §7.4). Pure: the repository reads one row, these decide.
 */
import type { Ref } from '@world/canonical';
import type { ReplyOf } from '@world/contracts';
import type { EndReason, JournalKind, JournalState } from '../db/schema.js';

/** One journal row as the laws need it (`expired` is the database's view of the claim clock). */
export interface JournalView {
  kind: JournalKind;
  state: JournalState;
  claimHash: string | null;
  endReason: EndReason | null;
  /** true when the claim's expiry has passed */
  expired: boolean;
  /** the caller id of the planner instance that holds (or held) the claim, when it named one */
  claimHolder: string | null;
  entryIndex: number | null;
  worldRef: Ref | null;
  outputRef: Ref | null;
  /** the output object's payload bytes, when committed */
  output: Buffer | null;
}

export type ReceiptReply = ReplyOf<'ledger.receipt.get'>;
export type BeginReply = ReplyOf<'ledger.invocation.begin'>;
export type InvocationReply = ReplyOf<'ledger.invocation.get'>;

/**
 * GetReceipt law: no row ⇒ not-started; an intent or claim without outcome ⇒ indeterminate
 * (treat as not landed, fail closed); committed ⇒ resolved with resultRef = the world ref.
 * Never not-started while an intent exists. Source: world-internals §5.3, world-spec §2.15.
 */
export function receiptOf(invocationId: string, row: JournalView | null): ReceiptReply {
  if (row === null) return { invocationId, state: 'not-started' };
  if (row.state === 'committed' && row.worldRef !== null) {
    return { invocationId, state: 'resolved', resultRef: row.worldRef };
  }
  return { invocationId, state: 'indeterminate' };
}

/** The committed view of a row, or null when the row has not committed. */
function committedOf(row: JournalView): Extract<InvocationReply, { state: 'committed' }> | null {
  if (
    row.state !== 'committed' ||
    row.entryIndex === null ||
    row.worldRef === null ||
    row.outputRef === null
  ) {
    return null;
  }
  return {
    state: 'committed',
    entryIndex: row.entryIndex,
    worldRef: row.worldRef,
    outputRef: row.outputRef,
    output: (row.output ?? Buffer.alloc(0)).toString('base64'),
  };
}

/**
 * What the ledger knows of an invocation id, read-only (A2A GetTask): none; committed (with the
 * output's exact bytes); in-flight (a live claim, or a REST intent); ended with its reason (a
 * claim past its expiry reads as ended:lapsed).
 */
export function invocationOf(row: JournalView | null): InvocationReply {
  if (row === null) return { state: 'none' };
  const committed = committedOf(row);
  if (committed !== null) return committed;
  if (row.state === 'ended') return { state: 'ended', reason: row.endReason ?? 'abandoned' };
  if (row.state === 'claimed' && row.expired) return { state: 'ended', reason: 'lapsed' };
  return inFlightOf(row);
}

/** A live claim's answer, naming its holder when the claim named one. */
function inFlightOf(row: JournalView): Extract<BeginReply, { state: 'in-flight' }> {
  return row.state === 'claimed' && row.claimHolder !== null
    ? { state: 'in-flight', holder: row.claimHolder }
    : { state: 'in-flight' };
}

/** What `ledger.invocation.begin` does with the row it found. */
export type BeginDecision =
  /** write a fresh claim (no row) or take an ended one over (reclaim) and answer 'claimed' */
  | { action: 'claim' }
  /** write nothing and answer this */
  | { action: 'answer'; reply: BeginReply };

/**
 * The begin law. No row ⇒ claim. Committed ⇒ same request hash ? the committed result :
 * mismatch (a commit without a claim has no request hash to match: mismatch, fail closed).
 * Otherwise a different hash ⇒ mismatch; a live claim ⇒ in-flight (naming its holder); an
 * ended or lapsed claim ⇒ claimed again with `reclaim`, else ended with its reason (lapsed for
 * an expired claim).
 * Source: DESIGN.md §7.4, world-spec §4.6 and §6.5.
 */
export function decideBegin(
  row: JournalView | null,
  requestHash: string,
  reclaim: boolean,
): BeginDecision {
  if (row === null) return { action: 'claim' };
  const answer = (reply: BeginReply): BeginDecision => ({ action: 'answer', reply });
  const committed = committedOf(row);
  if (committed !== null)
    return answer(row.claimHash === requestHash ? committed : { state: 'mismatch' });
  if (row.claimHash !== requestHash) return answer({ state: 'mismatch' });
  const view = invocationOf(row);
  if (view.state === 'ended') return reclaim ? { action: 'claim' } : answer(view);
  return answer(inFlightOf(row));
}
