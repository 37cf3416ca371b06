/**
 * The claim of a keyed invocation (A2A task id, MCP `world/taskId`) and what a resend is told
 * (DESIGN.md §2 and §7.4; world-spec §4.5, §4.6, §6.5; world-internals §5.5, §12 #24).
 */
import { Inject, Injectable } from '@nestjs/common';
import { decodeBase64, type Ref } from '@world/canonical';
import {
  EffectsUnrecordedError,
  InvocationInFlightError,
  REPLY_GRACE_MS,
  UncertainError,
  type ReplyOf,
} from '@world/contracts';
import { RPC, serviceLogger, type RpcClient } from '@world/runtime';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import type { Invocation } from './invocation.js';
import { requestHashOf } from './json-object.js';
import { isTransient, retryWithin } from './retry-within.js';

/** Time allowed to the small bookkeeping requests (claims, ends, releases, intent reads). */
const BOOKKEEPING_TIMEOUT_MS = 2_000;

type InvokeReply = ReplyOf<'planner.invoke'>;

/** How a call's claim ends when its commit will not land: a handler may have run, or nothing ran. */
export type EndReason = 'uncertain' | 'abandoned';

/** What a claim found: the claim is ours (go on), or the first attempt's committed result. */
export type ClaimResult =
  { kind: 'claimed'; claimToken: string } | { kind: 'committed'; reply: InvokeReply };

/** What became of a commit the planner could not confirm (InvocationClaims.settle). */
export type Settled =
  /** the claim was given up: the commit can never land (known not committed) */
  | { kind: 'given-up' }
  /** the commit had landed: its committed result */
  | { kind: 'committed'; reply: InvokeReply }
  /** the ledger could not be asked (or the call had no claim): the outcome stays unknown */
  | { kind: 'unknown' };

const log = serviceLogger('planner');

/**
 * A keyed invocation's claim in the ledger's journal, from `ledger.invocation.begin` to its end
 * or its commit, and the broker's effect records a resend is answered with.
 */
@Injectable()
export class InvocationClaims {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
  ) {}

  /**
   * Claims a keyed invocation in the ledger (its request hash: requestHashOf over the input's
   * canonical bytes), or answers a resend:
   * - claimed (fresh, or an ended first attempt under which no effect intent exists: reclaimed);
   * - committed → the first attempt's result, replayed;
   * - the id used for another call (request hash mismatch) → InvocationInFlightError
   *   (`task id already used in this session`: pick a new id for the other call);
   * - a live claim (the first attempt still running, its holder alive or not, this planner or
   *   another) → UncertainError once the broker holds an effect intent of the invocation, or
   *   cannot be asked whether it does (inFlightAfterEffect); InvocationInFlightError while no
   *   intent exists yet (nothing has run: resend after a moment);
   * - an ended or lapsed first attempt with an effect intent: its effects may have run and its
   *   commit can never land (the claim was given up: append.statements.ts toolBindable), so every
   *   resend gets EffectsUnrecordedError with the records — never "send a new task id", which
   *   would run the effect again (world-spec §4.5);
   * - the broker cannot be asked whether an intent exists → UncertainError (`resend the same
   *   task id`).
   * @throws InvocationInFlightError, EffectsUnrecordedError, UncertainError, and the ledger's
   *   transport errors for the claim itself (nothing started)
   */
  async claim(inv: Invocation): Promise<ClaimResult> {
    const claim = {
      invocationId: inv.invocationId,
      requestHash: requestHashOf(inv.req.toolId, inv.input.payload),
      ttlMs: this.settings.deadlines.leaseTtlMs,
      holder: this.settings.caller,
    };
    const begin = (reclaim: boolean) =>
      this.rpc.request(
        'ledger.invocation.begin',
        { ...claim, reclaim },
        { timeoutMs: BOOKKEEPING_TIMEOUT_MS },
      );
    let reply = await begin(false);
    if (reply.state === 'ended') {
      let found: { intents: number; records: string[] };
      try {
        found = await this.effectRecords(claim.invocationId);
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
          reply: replayOf(
            claim.invocationId,
            reply,
            true,
            await this.entryHashOf(reply.entryIndex),
          ),
        };
      case 'in-flight':
        if (await this.inFlightAfterEffect(claim.invocationId)) throw new UncertainError();
        throw new InvocationInFlightError();
      default:
        // mismatch: the id names another call (an `ended` answer is reclaimed above)
        throw new InvocationInFlightError();
    }
  }

  /**
   * Whether a live claim's first attempt has reached its effect: the broker holds an effect
   * intent of the invocation, or cannot be asked whether it does (a transport error: fail
   * closed). From the intent on the effect may have run, and the first attempt's commit may
   * still land — its planner waiting on a slow ledger, or killed with its claim not lapsed yet —
   * so the outcome is not known: a resend is told to resend the same task id (UncertainError;
   * world-internals §5.5, §12 #24), never `task id already used`, which would invite a new id
   * and so run the effect twice. The claim's holder is not asked whether it is alive (askCaller):
   * alive or gone, this planner or another, the answer is the same until the claim commits (the
   * committed result) or ends or lapses (EffectsUnrecordedError). False while no intent exists:
   * nothing has run yet, and the claim is in flight (InvocationInFlightError).
   * @param invocationId the keyed invocation's id (`a2a:<episode>:<task id>`, `mcp:…`)
   * @throws the broker's non-transient refusals
   */
  private async inFlightAfterEffect(invocationId: string): Promise<boolean> {
    try {
      return (await this.effectRecords(invocationId)).intents > 0;
    } catch (err) {
      if (isTransient(err)) return true;
      throw err;
    }
  }

  /**
   * Settles a keyed invocation whose commit did not answer (or was refused): ends (gives up) its
   * claim — from then on no commit of it lands — unless the commit landed first, in which case
   * its committed result is read back. The end and the read are retried on transport errors
   * until half the gateway's grace beyond the deadline, so the answer still reaches the gateway
   * before its own wait ends. A call without a claim has an unknown outcome.
   * @param reason `uncertain` when a handler may have run, `abandoned` when nothing ran
   */
  async settle(inv: Invocation, reason: EndReason): Promise<Settled> {
    const { invocationId, claimToken } = inv;
    if (claimToken === undefined) return { kind: 'unknown' };
    const until = Math.max(inv.deadline, Date.now()) + REPLY_GRACE_MS / 2;
    try {
      const { ended } = await retryWithin(until, BOOKKEEPING_TIMEOUT_MS, (timeoutMs) =>
        this.rpc.request(
          'ledger.invocation.end',
          { invocationId, reason, claimToken },
          { timeoutMs },
        ),
      );
      if (ended) return { kind: 'given-up' };
      const view = await retryWithin(until, BOOKKEEPING_TIMEOUT_MS, (timeoutMs) =>
        this.rpc.request('ledger.invocation.get', { invocationId }, { timeoutMs }),
      );
      return view.state === 'committed'
        ? {
            kind: 'committed',
            reply: replayOf(invocationId, view, false, await this.entryHashOf(view.entryIndex)),
          }
        : { kind: 'unknown' };
    } catch (err) {
      if (isTransient(err)) return { kind: 'unknown' };
      throw err;
    }
  }

  /**
   * Marks a keyed invocation's claim ended, once (best effort: a lapsed claim ends by itself).
   * @throws the ledger's non-transient refusals
   */
  async end(inv: Invocation, reason: EndReason): Promise<void> {
    if (inv.claimToken === undefined) return;
    try {
      await this.rpc.request(
        'ledger.invocation.end',
        { invocationId: inv.invocationId, reason, claimToken: inv.claimToken },
        { timeoutMs: BOOKKEEPING_TIMEOUT_MS },
      );
    } catch (err) {
      if (!isTransient(err)) throw err;
      log.warn({ err, invocationId: inv.invocationId }, 'could not end the claim; it will lapse');
    }
  }

  /**
   * The effect record refs of an invocation's intents as the broker holds them (an intent whose
   * outcome was never written has none yet).
   * @param timeoutMs at most BOOKKEEPING_TIMEOUT_MS
   * @throws ServiceUnavailableError / TransportTimeoutError when no broker answers
   */
  async effectRecords(
    invocationId: string,
    timeoutMs = BOOKKEEPING_TIMEOUT_MS,
  ): Promise<{ intents: number; records: string[] }> {
    const { items } = await this.rpc.request(
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
   * The hash of the committed entry a replay cites (MCP results carry it in `_meta`); the
   * journal answers only its index.
   */
  private async entryHashOf(index: number): Promise<Ref> {
    const entry = await this.rpc.request(
      'ledger.log.entry',
      { index },
      { timeoutMs: BOOKKEEPING_TIMEOUT_MS },
    );
    return entry.entryHash;
  }
}

/** The planner's reply for a committed invocation read from the ledger (a resend's replay). */
function replayOf(
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
