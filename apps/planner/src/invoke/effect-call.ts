import { Inject, Injectable } from '@nestjs/common';
import { fromWireObject } from '@world/canonical';
import {
  EPISODE_LEASE_TTL_MS,
  EffectsUnrecordedError,
  REPLY_GRACE_MS,
  TransportTimeoutError,
  type ReplyOf,
} from '@world/contracts';
import { RPC, inSpan, serviceLogger, type RpcClient } from '@world/runtime';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import { CommitCall } from './commit-call.js';
import { composeOutput, type ComposedEffect } from './compose-output.js';
import { EpisodeLeases, type HeldLease } from './episode-leases.js';
import { FinishCall } from './finish-call.js';
import { InvocationClaims } from './invocation-claims.js';
import { spanIds, type Invocation } from './invocation.js';
import type { PlannedCall } from './plan-call.js';

/** Slack added to the execute request's timeout over the broker's own lease wait + handler cap. */
const EXECUTE_MARGIN_MS = 1_000;

const log = serviceLogger('planner');

/**
 * A plan with an effect (DESIGN.md §2): its one effect runs on the broker under the episode
 * lease (`broker.effect.execute`: tx1, handler, tx2), then the finish step, the output and the
 * commit while the lease is kept, which is released when the call answers. Anything failing
 * after the handler may have run is an EffectsUnrecordedError carrying the effect record refs,
 * and the effect is never run again (world-spec §4.5).
 */
@Injectable()
export class EffectCall {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
    private readonly claims: InvocationClaims,
    private readonly leases: EpisodeLeases,
    private readonly finishCall: FinishCall,
    private readonly commitCall: CommitCall,
  ) {}

  /**
   * @returns the committed reply (or, when its commit did not answer but landed, the replay)
   * @throws the broker's typed refusals (LeaseLost, Session*, NoHandler, DeadlineExceeded…) with
   *   the claim ended; EffectsUnrecordedError once the handler may have run
   */
  async execute(
    inv: Invocation,
    { plan, planObject }: PlannedCall,
  ): Promise<ReplyOf<'planner.invoke'>> {
    const holder = `${this.settings.replica}/${inv.invocationId}`;
    const exec = await this.run(inv, plan.effects[0]!, holder);
    const records = [exec.recordRef];
    const lease: HeldLease = {
      episodeId: inv.req.session.episodeId,
      holder,
      fence: exec.fence,
      invocationId: inv.invocationId,
    };
    const renewal = this.leases.keep(lease);
    try {
      const effect = plan.effects[0]!;
      const composed: ComposedEffect = {
        id: effect.id,
        status: exec.status,
        record: exec.recordRef,
        output: exec.output,
      };
      const finishOutput = await this.finishCall.execute(inv, plan, exec);
      const output = composeOutput(plan, planObject.hash, composed, finishOutput);
      const brokerObjects = exec.objects.map((o, i) => fromWireObject(o, `objects[${i}]`));
      return await this.commitCall.execute(inv, planObject, output, records, brokerObjects);
    } catch (err) {
      // The handler ran. Give the claim up, so no late commit of it can land, unless that
      // commit landed first; either way the answer is final (world-spec §4.5).
      const cause = err instanceof Error ? err.message : String(err);
      const settled = await this.claims.settle(inv, 'uncertain');
      if (settled.kind === 'committed') return settled.reply;
      log.error(
        { invocationId: inv.invocationId, records, cause, claim: settled.kind },
        'effects unrecorded',
      );
      throw new EffectsUnrecordedError(inv.invocationId, records, cause);
    } finally {
      void renewal.stop();
      this.leases.release(lease);
    }
  }

  /**
   * `broker.effect.execute` for the plan's effect, waiting for the lease at most what the
   * deadline leaves after the handler's and the post-effect shares. A refusal ends the claim; a
   * request that did not answer may have run the handler: it is never retried, and answers
   * EffectsUnrecorded with the records a live broker replica holds for it, if one answers in time.
   */
  private async run(
    inv: Invocation,
    effect: PlannedCall['plan']['effects'][number],
    holder: string,
  ): Promise<ReplyOf<'broker.effect.execute'>> {
    const d = this.settings.deadlines;
    const sentAt = Date.now();
    const waitMs = Math.max(0, inv.deadline - sentAt - d.handlerMs - d.postEffectMs);
    try {
      return await inSpan('execute', spanIds(inv), () =>
        this.rpc.request(
          'broker.effect.execute',
          {
            invocationId: inv.invocationId,
            credentialId: inv.req.session.credentialId,
            episodeId: inv.req.session.episodeId,
            acquire: { holder, ttlMs: EPISODE_LEASE_TTL_MS, waitMs, caller: this.settings.caller },
            now: inv.started,
            effect,
            handlerMs: d.handlerMs,
            // A handler started later could not answer before this request's timeout below.
            startBy: sentAt + waitMs + EXECUTE_MARGIN_MS / 2,
          },
          { timeoutMs: waitMs + d.handlerMs + EXECUTE_MARGIN_MS },
        ),
      );
    } catch (err) {
      if (err instanceof TransportTimeoutError) {
        await this.claims.end(inv, 'uncertain');
        const lookupMs = Math.max(1, inv.deadline + REPLY_GRACE_MS / 2 - Date.now());
        const { records } = await this.claims
          .effectRecords(inv.invocationId, lookupMs)
          .catch(() => ({ records: [] as string[] }));
        log.error({ invocationId: inv.invocationId, records }, 'effect execution did not answer');
        throw new EffectsUnrecordedError(inv.invocationId, records, 'effect execution timed out');
      }
      await this.claims.end(inv, err instanceof EffectsUnrecordedError ? 'uncertain' : 'abandoned');
      throw err;
    }
  }
}
