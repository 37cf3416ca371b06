import { Inject, Injectable } from '@nestjs/common';
import { objectJson, toWireObject, type WorldObject } from '@world/canonical';
import {
  BadRequestError,
  NoHandlerError,
  SessionUnknownError,
  type DenialLabel,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import {
  REPLICA,
  crashpoint,
  observePhase,
  serviceLogger,
  startMark,
  worldMetrics,
} from '@world/runtime';
import { EpisodeLease } from '../episodes/lease.js';
import { worktreeProblem } from '../episodes/worktree.js';
import type { EffectHandler } from '../handlers/registry.js';
import { PolicyFiles } from '../policy/policy-files.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import { HANDLERS, type HandlerRegistry } from '../settings.js';
import { decide } from './decide.js';
import { runHandler } from './run-handler.js';
import {
  effectRecord,
  effectRecordObject,
  effectRequestObject,
  effectResultObject,
} from './effect-objects.js';
import {
  EffectsRepository,
  spendKey,
  type BeginResult,
  type EffectStart,
  type RecordRow,
  type SpendMap,
} from './effects.repository.js';

const log = serviceLogger('broker');

/** The denial label `world_budget_denials_total` counts (world-spec §2.8). */
const BUDGET_DENIAL: DenialLabel = 'denied:budget';

type ExecuteRequest = ParsedRequestOf<'broker.effect.execute'>;
type ExecuteReply = ReplyOf<'broker.effect.execute'>;

/**
 * `broker.effect.execute`, the broker's heart (world-spec §2.7–§2.9, world-internals §5,
 * DESIGN.md §2). Order of durable writes:
 * 1. refusals that write nothing: no handler for the effect or no real worktree (NoHandlerError,
 *    rule R8), an unknown/revoked/foreign session (SessionUnknownError) — the episode and the
 *    session with its grants are read in one statement — a stale fence (LeaseLostError,
 *    checked under the episode row lock);
 * 2. tx1 under the episode row lock: with `acquire`, the lease is taken in tx1 itself (free or
 *    expired: fence += 1; held: nothing written, wait and retry up to waitMs, then
 *    DeadlineExceededError); decide against the session's grants seeded with
 *    budget − spent; denied → request object + record only; allowed → spend += cost, intent
 *    (ordinal max+1), request object; crash point `after-intent`. When the read of step 1
 *    found the lease free and the decision allows, tx1 is one statement that takes the lease
 *    only if it is still free at the fence read and writes the start with it
 *    (EffectsRepository.beginFree); otherwise, or when that finds the lease moved, the locking
 *    transaction above;
 * 3. the handler, bounded by handlerMs (an op outside its allowlist, a throw, a timeout or a
 *    malformed output is a failure; a policy refusal is an ordinary ok:false output);
 *    crash point `after-handler`;
 * 4. tx2: result object (success only), record (succeeded or failed: the spend stands,
 *    incident 2), outcome (crash point `before-outcome` just before it); one statement, so
 *    they become durable together, never the outcome without its record.
 * The reply carries the request, result and record objects for the planner's commit.
 * Every execute that reaches a decision is logged (`effect executed`) and counted in
 * `world_effects_total` (denied:budget also in `world_budget_denials_total`); the lease wait
 * and the handler are timed as phases `lease` and `execute` (packages/runtime/README.md).
 */
@Injectable()
export class ExecuteEffect {
  constructor(
    private readonly effects: EffectsRepository,
    private readonly sessions: SessionsRepository,
    private readonly lease: EpisodeLease,
    private readonly policies: PolicyFiles,
    @Inject(HANDLERS) private readonly handlers: HandlerRegistry,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  /**
   * @throws NoHandlerError, SessionUnknownError, LeaseLostError (nothing written),
   *   DeadlineExceededError (the lease stayed held), BadRequestError (neither or both of
   *   fence and acquire)
   */
  async execute(request: ExecuteRequest): Promise<ExecuteReply> {
    const { episodeId, invocationId, now } = request;
    const { effect, scope, cost, payload } = request.effect;
    const handler = Object.hasOwn(this.handlers, effect) ? this.handlers[effect] : undefined;
    if (handler === undefined) throw new NoHandlerError();
    if ((request.fence === undefined) === (request.acquire === undefined)) {
      throw new BadRequestError(
        'broker.effect.execute: exactly one of fence and acquire is required',
      );
    }
    const { episode, session } = await this.sessions.findWithEpisode(
      request.credentialId,
      episodeId,
    );
    const worktree = episode?.worktree ?? null;
    const problem =
      worktree === null
        ? `the episode ${episode === null ? 'does not exist' : 'has no worktree'}`
        : await worktreeProblem(worktree);
    if (worktree === null || problem !== null) {
      // The wire answer stays the constant R8 text; the operator learns the cause here.
      log.warn({ episode: episodeId, problem }, `episode ${episodeId} has no usable worktree`);
      throw new NoHandlerError();
    }
    if (session === null || session.revokedAt !== null || session.episodeId !== episodeId) {
      throw new SessionUnknownError();
    }
    const policy = await this.policies.ensure(episodeId, worktree);

    const requestObject = effectRequestObject({ effect, scope, cost, now, payload });
    const ask = { effect, scope, cost };
    let budgetBefore = 0;
    let denial: DenialLabel | undefined;
    let leaseMark: bigint | undefined;
    const choose = (spent: SpendMap): EffectStart => {
      denial = undefined;
      if (leaseMark !== undefined) {
        observePhase(this.replica, 'lease', leaseMark);
        leaseMark = undefined;
      }
      const views = session.grants.map((g) => ({
        effect: g.effect,
        scope: g.scope,
        expiresAt: g.expiresAt,
        remaining: Math.max(0, g.budget - (spent.get(spendKey(g.effect, g.scope)) ?? 0)),
      }));
      const decision = decide(views, { ...ask, now });
      budgetBefore = decision.remaining;
      if (!decision.allowed) {
        denial = decision.label;
        const record = effectRecord(ask, requestObject.hash, {
          arm: 'denied',
          budgetBefore,
          denial: decision.label,
        });
        const recordObject = effectRecordObject(record);
        return {
          kind: 'denied',
          objects: [requestObject, recordObject],
          record: { ref: recordObject.hash, episodeId, invocationId, record },
        };
      }
      return {
        kind: 'allowed',
        objects: [requestObject],
        intent: {
          invocationId,
          effect,
          scope,
          cost,
          requestRef: requestObject.hash,
          logicalTime: now,
        },
      };
    };
    let begun: BeginResult | null = null;
    if (request.fence !== undefined) {
      begun = await this.effects.begin(episodeId, { fence: request.fence }, choose);
    } else if (episode!.leaseHolder === null) {
      // The lease was free in the read above: decide on that read's spend and take the lease
      // and start the effect in one statement; when the lease moved meanwhile, nothing was
      // written and the locking path below decides again.
      const freeMark = startMark();
      const start = choose(episode!.spent);
      if (start.kind === 'allowed') {
        const { holder, ttlMs } = request.acquire!;
        begun = await this.effects.beginFree(
          episodeId,
          { holder, ttlMs, now: Date.now(), freeFence: episode!.leaseFence },
          start,
        );
        if (begun !== null) observePhase(this.replica, 'lease', freeMark);
      }
    }
    if (begun === null) {
      // The lease is taken inside tx1 (the contract's "in the same transaction"); phase `lease`
      // is the wait for it, observed when tx1 holds it (or when taking it failed).
      const { holder, ttlMs, waitMs } = request.acquire!;
      leaseMark = startMark();
      try {
        begun = await this.lease.acquireVia({ episodeId, waitMs }, (attemptNow) =>
          this.effects.begin(episodeId, { acquire: { holder, ttlMs, now: attemptNow } }, choose),
        );
      } finally {
        if (leaseMark !== undefined) observePhase(this.replica, 'lease', leaseMark);
      }
    }
    const { fence, start } = begun;
    if (start.kind === 'denied') {
      this.executed({ invocationId, episodeId, effect, status: 'denied', ordinal: null, denial });
      if (denial === BUDGET_DENIAL)
        worldMetrics().budgetDenials.inc({ replica: this.replica, effect });
      return reply(fence, 'denied', start.record, null, start.objects);
    }
    crashpoint('after-intent');
    // The lease taken in tx1 is short (EPISODE_LEASE_TTL_MS): renewed here until the reply, so
    // it lapses soon after this process dies; losing it stops the handler.
    const leaseLost = new AbortController();
    const renewal =
      request.acquire === undefined
        ? undefined
        : this.lease.keep({ episodeId, fence, ...request.acquire }, () => leaseLost.abort());
    try {
      return await this.runAndRecord(request, handler, begun, {
        requestObject,
        ask,
        budgetBefore,
        context: { episodeId, worktree, scope, policy },
        leaseLost: leaseLost.signal,
      });
    } finally {
      void renewal?.stop();
    }
  }

  /**
   * Steps 3 and 4: runs the handler (stopped when `leaseLost` aborts) and writes tx2 (result,
   * record, outcome); returns the reply.
   */
  private async runAndRecord(
    request: ExecuteRequest,
    handler: EffectHandler,
    begun: BeginResult,
    step: {
      requestObject: WorldObject;
      ask: { effect: string; scope: string; cost: number };
      budgetBefore: number;
      context: Parameters<typeof runHandler>[2];
      leaseLost: AbortSignal;
    },
  ): Promise<ExecuteReply> {
    const { episodeId, invocationId } = request;
    const { effect } = request.effect;
    const { fence, ordinal } = begun;
    const { requestObject, ask, budgetBefore } = step;
    const executeMark = startMark();
    const ran = await runHandler(handler, request, step.context, step.leaseLost);
    observePhase(this.replica, 'execute', executeMark);
    crashpoint('after-handler');

    let row: RecordRow;
    const written: WorldObject[] = [requestObject];
    if (ran.ok) {
      const resultObject = effectResultObject(ran.output);
      const record = effectRecord(ask, requestObject.hash, {
        arm: 'succeeded',
        budgetBefore,
        resultRef: resultObject.hash,
      });
      const recordObject = effectRecordObject(record);
      row = { ref: recordObject.hash, episodeId, invocationId, record };
      written.push(resultObject, recordObject);
    } else {
      log.warn(
        { invocationId, episodeId, ordinal, effect, reason: ran.reason },
        'effect handler failed',
      );
      const record = effectRecord(ask, requestObject.hash, { arm: 'failed', budgetBefore });
      const recordObject = effectRecordObject(record);
      row = { ref: recordObject.hash, episodeId, invocationId, record };
      written.push(recordObject);
    }
    await this.effects.finish(
      episodeId,
      ordinal!,
      written.slice(1),
      row,
      ran.ok ? 'succeeded' : 'failed',
      () => crashpoint('before-outcome'),
    );
    this.executed({
      invocationId,
      episodeId,
      effect,
      status: ran.ok ? 'ok' : 'failed',
      ordinal: ordinal!,
    });
    return reply(
      fence,
      ran.ok ? 'ok' : 'failed',
      row,
      ran.ok ? objectJson(written[1]!) : null,
      written,
    );
  }

  /**
   * The operator's line and counter of an execute that reached a decision
   * (packages/runtime/README.md): one `effect executed` line with {replica, invocationId,
   * episodeId, effect, status, ordinal} (ordinal null for a denial, which has no intent) and
   * `world_effects_total`.
   */
  private executed(fields: {
    invocationId: string;
    episodeId: string;
    effect: string;
    status: ExecuteReply['status'];
    ordinal: number | null;
    denial?: DenialLabel;
  }): void {
    worldMetrics().effects.inc({
      replica: this.replica,
      effect: fields.effect,
      status: fields.status,
    });
    log.info({ replica: this.replica, ...fields }, 'effect executed');
  }
}

function reply(
  fence: number,
  status: ExecuteReply['status'],
  row: RecordRow,
  output: Record<string, unknown> | null,
  objects: WorldObject[],
): ExecuteReply {
  return {
    fence,
    status,
    recordRef: row.ref as ExecuteReply['recordRef'],
    record: row.record,
    output,
    objects: objects.map(toWireObject),
  };
}
