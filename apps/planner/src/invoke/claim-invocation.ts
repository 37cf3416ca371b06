/**
 * The claim of a keyed invocation (A2A task id, MCP `world/taskId`) and what a resend is told
 * (DESIGN.md §2 and §7.4; world-spec §4.5, §4.6, §6.5; world-internals §5.5, §12 #24).
 */
import { decodeBase64, type Ref } from '@world/canonical';
import {
  EffectsUnrecordedError,
  InvocationInFlightError,
  UncertainError,
  type ReplyOf,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { isTransient, retryWithin } from './retry-within.js';

/** Time allowed to the small bookkeeping requests (claims, ends, releases, intent reads). */
export const BOOKKEEPING_TIMEOUT_MS = 2_000;

type InvokeReply = ReplyOf<'planner.invoke'>;

/** What a claim found: the claim is ours (go on), or the first attempt's committed result. */
export type ClaimResult =
  { kind: 'claimed'; claimToken: string } | { kind: 'committed'; reply: InvokeReply };

/** The planner's reply for a committed invocation read from the ledger (a resend's replay). */
export function replayOf(
  invocationId: string,
  committed: Extract<ReplyOf<'ledger.invocation.get'>, { state: 'committed' }>,
  replayed: boolean,
  entryHash: Ref,
): InvokeReply {
  const bytes = decodeBase64(committed.output, 'output');
  return {
    invocationId,
    output: JSON.parse(bytes.toString('utf8')) as Record<string, unknown>,
    outputBytes: committed.output,
    outputRef: committed.outputRef,
    entryIndex: committed.entryIndex,
    entryHash,
    worldRef: committed.worldRef,
    replayed,
  };
}

/**
 * The hash of the committed entry a replay cites (issue 12: MCP results carry it in `_meta`);
 * the journal answers only its index.
 */
async function entryHashOf(rpc: Pick<RpcClient, 'request'>, index: number): Promise<Ref> {
  const entry = await rpc.request(
    'ledger.log.entry',
    { index },
    { timeoutMs: BOOKKEEPING_TIMEOUT_MS },
  );
  return entry.entryHash;
}

/**
 * The effect record refs of an invocation's intents as the broker holds them (an intent whose
 * outcome was never written has none yet).
 * @throws ServiceUnavailableError / TransportTimeoutError when no broker answers
 */
export async function effectRecordsOf(
  rpc: RpcClient,
  invocationId: string,
  timeoutMs = BOOKKEEPING_TIMEOUT_MS,
): Promise<{ intents: number; records: string[] }> {
  const { items } = await rpc.request(
    'broker.effect.byInvocation',
    { invocationId },
    { timeoutMs: Math.min(timeoutMs, BOOKKEEPING_TIMEOUT_MS) },
  );
  return {
    intents: items.length,
    records: items.flatMap((i) => (i.recordRef === null ? [] : [i.recordRef])),
  };
}

/**
 * Claims a keyed invocation in the ledger, or answers a resend:
 * - claimed (fresh, or an ended first attempt under which no effect intent exists: reclaimed);
 * - committed → the first attempt's result, replayed;
 * - live claim of another attempt, or the id used for another call → InvocationInFlightError
 *   (`task id already used in this session`);
 * - an ended or lapsed first attempt with an effect intent: its effects may have run and its
 *   commit can never land (the claim was given up: append.statements.ts toolBindable), so every
 *   resend gets EffectsUnrecordedError with the records — never "send a new task id", which
 *   would run the effect again (issue 11 items 1–2);
 * - the broker cannot be asked whether an intent exists → UncertainError (`resend the same
 *   task id`).
 * @throws InvocationInFlightError, EffectsUnrecordedError, UncertainError, and the ledger's
 *   transport errors for the claim itself (nothing started)
 */
export async function claimInvocation(
  rpc: RpcClient,
  claim: { invocationId: string; requestHash: string; ttlMs: number },
): Promise<ClaimResult> {
  const begin = (reclaim: boolean) =>
    rpc.request(
      'ledger.invocation.begin',
      { ...claim, reclaim },
      {
        timeoutMs: BOOKKEEPING_TIMEOUT_MS,
      },
    );
  let reply = await begin(false);
  if (reply.state === 'ended') {
    let found: { intents: number; records: string[] };
    try {
      found = await effectRecordsOf(rpc, claim.invocationId);
    } catch (err) {
      if (isTransient(err)) throw new UncertainError();
      throw err;
    }
    if (found.intents > 0) {
      throw new EffectsUnrecordedError(
        claim.invocationId,
        found.records,
        `the first attempt ended (${reply.reason}) after its effect intent was written`,
      );
    }
    reply = await begin(true);
  }
  switch (reply.state) {
    case 'claimed':
      return { kind: 'claimed', claimToken: reply.claimToken };
    case 'committed':
      return {
        kind: 'committed',
        reply: replayOf(claim.invocationId, reply, true, await entryHashOf(rpc, reply.entryIndex)),
      };
    default:
      throw new InvocationInFlightError();
  }
}

/** What became of a commit the planner could not confirm (settleCommit). */
export type Settled =
  /** the claim was given up: the commit can never land (known not committed) */
  | { kind: 'given-up' }
  /** the commit had landed: its committed result */
  | { kind: 'committed'; reply: InvokeReply }
  /** the ledger could not be asked (or the call had no claim): the outcome stays unknown */
  | { kind: 'unknown' };

/**
 * Settles a keyed invocation whose commit did not answer (or was refused): ends (gives up) its
 * claim — from then on no commit of it lands — unless the commit landed first, in which case
 * its committed result is read back. The end and the read are retried on transport errors
 * until `until`.
 * @param claimToken the claim's token; undefined for a call without a claim (outcome unknown)
 * @param reason `uncertain` when a handler may have run, `abandoned` when nothing ran
 * @param until epoch ms after which the outcome is left unknown
 */
export async function settleCommit(
  rpc: RpcClient,
  invocationId: string,
  claimToken: string | undefined,
  reason: 'uncertain' | 'abandoned',
  until: number,
): Promise<Settled> {
  if (claimToken === undefined) return { kind: 'unknown' };
  try {
    const { ended } = await retryWithin(until, BOOKKEEPING_TIMEOUT_MS, (timeoutMs) =>
      rpc.request('ledger.invocation.end', { invocationId, reason, claimToken }, { timeoutMs }),
    );
    if (ended) return { kind: 'given-up' };
    const view = await retryWithin(until, BOOKKEEPING_TIMEOUT_MS, (timeoutMs) =>
      rpc.request('ledger.invocation.get', { invocationId }, { timeoutMs }),
    );
    return view.state === 'committed'
      ? {
          kind: 'committed',
          reply: replayOf(invocationId, view, false, await entryHashOf(rpc, view.entryIndex)),
        }
      : { kind: 'unknown' };
  } catch (err) {
    if (isTransient(err)) return { kind: 'unknown' };
    throw err;
  }
}
