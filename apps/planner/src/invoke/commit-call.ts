import { Inject, Injectable } from '@nestjs/common';
import type { WorldObject } from '@world/canonical';
import type { ReplyOf } from '@world/contracts';
import {
  ENTRY_INDEX_ATTRIBUTE,
  RPC,
  inSpan,
  observePhase,
  startMark,
  type RpcClient,
} from '@world/runtime';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import { commitRequestOf } from './commit-request.js';
import { spanIds, type Invocation } from './invocation.js';
import { retryWithin } from './retry-within.js';

/**
 * The part of the post-effect share kept, after the commit's last retry, to settle an
 * unanswered commit (give its claim up, or read it committed) before the gateway stops waiting.
 */
function settleReserveMs(postEffectMs: number): number {
  return postEffectMs / 4;
}

/**
 * The commit step: the call's one log entry through `ledger.commit` (DESIGN.md §2), timed as the
 * `commit` phase. Retried within the call's deadline on "no responders" and timeouts: a resend
 * of a commit that landed answers its first result (the journal is keyed by invocation id).
 */
@Injectable()
export class CommitCall {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
  ) {}

  /**
   * @param planObject the plan object the entry names
   * @param output the composed output (tool fields + world block)
   * @param records the effect record refs (none for a refusal)
   * @param brokerObjects the broker's request, result and record objects
   * @returns the planner's reply: the committed output, its bytes and ref, the entry
   * @throws PlanLawError (output too large, commitRequestOf), the ledger's refusals, and its
   *   transport errors once the retries are spent
   */
  async execute(
    inv: Invocation,
    planObject: WorldObject,
    output: Record<string, unknown>,
    records: string[],
    brokerObjects: WorldObject[],
  ): Promise<ReplyOf<'planner.invoke'>> {
    const { request, outputRef, outputBytes } = commitRequestOf({
      invocationId: inv.invocationId,
      episodeId: inv.req.session.episodeId,
      writtenBy: inv.writtenBy,
      descriptor: inv.tool.descriptor,
      input: inv.input,
      plan: planObject,
      output,
      records,
      brokerObjects,
      claimToken: inv.claimToken,
    });
    const mark = startMark();
    const postEffectMs = this.settings.deadlines.postEffectMs;
    const committed = await inSpan('commit', spanIds(inv), async (span) => {
      const answer = await retryWithin(
        Math.max(inv.deadline, Date.now() + postEffectMs) - settleReserveMs(postEffectMs),
        postEffectMs,
        (timeoutMs) => this.rpc.request('ledger.commit', request, { timeoutMs }),
      );
      span.setAttribute(ENTRY_INDEX_ATTRIBUTE, answer.entryIndex);
      return answer;
    }).finally(() => observePhase(this.settings.replica, 'commit', mark));
    const { entryIndex, entryHash, worldRef, replayed } = committed;
    return {
      invocationId: inv.invocationId,
      output,
      outputBytes,
      outputRef,
      entryIndex,
      entryHash,
      worldRef,
      replayed,
    };
  }
}
