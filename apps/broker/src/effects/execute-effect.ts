import { Inject, Injectable } from '@nestjs/common';
import { objectJson, toWireObject, type WorldObject } from '@world/canonical';
import {
  NoHandlerError,
  SessionUnknownError,
  sessionStatus,
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
import type { EpisodeView } from '../episodes/episodes.repository.js';
import { EpisodeLease } from '../episodes/lease.js';
import { worktreeProblem } from '../episodes/worktree.js';
import type { EffectHandler } from '../handlers/registry.js';
import { PolicyFiles } from '../policy/policy-files.js';
import { SessionsRepository } from '../sessions/sessions.repository.js';
import { HANDLERS, type HandlerRegistry } from '../settings.js';
import { authorize, type AuthorizeInput } from './authorize.js';
import {
  effectRecord,
  effectRecordObject,
  effectRequestObject,
  effectResultObject,
} from './effect-objects.js';
import type { RecordRow } from './effect-start.js';
import { EffectsRepository } from './effects.repository.js';
import { LeaseTerm } from '../episodes/lease-term.js';
import { runHandler, type HandlerRun } from './run-handler.js';
import { StartEffect, chooseStart, leaseHoldOf } from './start-effect.js';

const log = serviceLogger('broker');

/**
 * Why a handler whose tx1 is written must not start now, or null when it may: the lease this
 * call took ran out (a broker paused or starved past the ttl after tx1: a later call may own
 * the episode), or the caller's `startBy` passed (it no longer waits: it settled the call as
 * unrecorded). Either way the effect is recorded as failed — its intent and spend stand — and
 * never applied late over a later call's (DESIGN.md §2 "Per-episode serialization").
 * @param term the lease tx1 took (absent: a fenced call, whose lease is its caller's)
 * @param startBy the request's latest start, epoch ms (absent: none given)
 */
function lateStart(
  term: LeaseTerm | undefined,
  startBy: number | undefined,
  now: number = Date.now(),
): string | null {
  if (term !== undefined && !term.held(now))
    return 'the episode lease lapsed before the handler could start; the effect did not run';
  if (startBy !== undefined && now >= startBy)
    return 'the caller stopped waiting before the handler could start; the effect did not run';
  return null;
}

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
 * 2. tx1 under the episode row lock, by the way `chooseStart` picks (StartEffect): with
 *    `acquire`, the lease is taken in tx1 itself (free or expired: fence += 1; held: nothing
 *    written, wait and retry up to waitMs, then DeadlineExceededError); the pure `authorize`
 *    step decides against the session's grants seeded with budget − spent; denied → request
 *    object + record only; allowed → spend += cost, intent (ordinal max+1), request object;
 *    crash point `after-intent`. When the read of step 1 found the lease free and the decision
 *    allows, tx1 is one statement that takes the lease only if it is still free at the fence
 *    read and writes the start with it (EffectsRepository.beginFree); otherwise, or when that
 *    finds the lease moved, the locking transaction above;
 * 3. the handler, bounded by handlerMs (an op outside its allowlist, a throw, a timeout or a
 *    malformed output is a failure; a policy refusal is an ordinary ok:false output) — and not
 *    started at all, a failure, when the lease tx1 took has already lapsed (LeaseTerm: this
 *    broker was paused or starved past its ttl, so a later call may own the episode now);
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
    private readonly sessions: SessionsRepository,
    private readonly starts: StartEffect,
    private readonly effects: EffectsRepository,
    private readonly lease: EpisodeLease,
    private readonly policies: PolicyFiles,
    @Inject(HANDLERS) private readonly handlers: HandlerRegistry,
    @Inject(REPLICA) private readonly replica: string,
  ) {}

  /**
   * @throws NoHandlerError, SessionUnknownError, LeaseLostError (nothing written),
   *   DeadlineExceededError (the lease stayed held, or the request was read past its startBy:
   *   nothing written), BadRequestError (neither or both of
   *   fence and acquire)
   */
  async execute(request: ExecuteRequest): Promise<ExecuteReply> {
    const { episodeId, invocationId, now } = request;
    const { effect, scope, cost, payload } = request.effect;
    const handler = Object.hasOwn(this.handlers, effect) ? this.handlers[effect] : undefined;
    if (handler === undefined) throw new NoHandlerError();
    const hold = leaseHoldOf(request, Date.now());
    const { episode, session } = await this.sessions.findWithEpisode(
      request.credentialId,
      episodeId,
    );
    const { view, worktree } = await usableWorktree(episodeId, episode);
    if (
      session === null ||
      session.episodeId !== episodeId ||
      sessionStatus(session, now) === 'revoked'
    ) {
      throw new SessionUnknownError();
    }
    const policy = await this.policies.ensure(episodeId, worktree);
    const ask = { effect, scope, cost, now };
    const input: AuthorizeInput = {
      episodeId,
      invocationId,
      grants: session.grants,
      ask,
      requestObject: effectRequestObject({ effect, scope, cost, now, payload }),
    };
    const begun = await this.starts.start(chooseStart(hold, view), {
      episodeId,
      invocationId,
      spentAtRead: view.spent,
      authorize: (spent) => authorize(input, spent),
    });
    const { fence, start } = begun;
    if (start.kind === 'denied') {
      this.executed({
        invocationId,
        episodeId,
        effect,
        status: 'denied',
        ordinal: null,
        denial: start.denial,
      });
      if (start.denial === BUDGET_DENIAL)
        worldMetrics().budgetDenials.inc({ replica: this.replica, effect });
      return reply(fence, 'denied', start.record, null, start.objects);
    }
    crashpoint('after-intent');
    // The lease taken in tx1 is short (EPISODE_LEASE_TTL_MS): renewed here until the reply, so
    // it lapses soon after this process dies; losing it stops the handler, and a term that ran
    // out before the handler starts keeps it from starting (LeaseTerm).
    const leaseLost = new AbortController();
    const term = begun.leaseUntil === undefined ? undefined : new LeaseTerm(begun.leaseUntil);
    const renewal =
      'acquire' in hold
        ? this.lease.keep(
            { episodeId, fence, ...hold.acquire },
            () => leaseLost.abort(),
            (until) => term?.extend(until),
          )
        : undefined;
    try {
      return await this.runAndRecord(request, handler, begun.ordinal!, fence, {
        requestObject: input.requestObject,
        budgetBefore: start.budgetBefore,
        context: { episodeId, worktree, scope, policy },
        leaseLost: leaseLost.signal,
        term,
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
    ordinal: number,
    fence: number,
    step: {
      requestObject: WorldObject;
      budgetBefore: number;
      context: Parameters<typeof runHandler>[2];
      leaseLost: AbortSignal;
      /** the lease this call took in tx1 (absent: a fenced call, whose lease is its caller's) */
      term: LeaseTerm | undefined;
    },
  ): Promise<ExecuteReply> {
    const { episodeId, invocationId } = request;
    const { effect } = request.effect;
    const executeMark = startMark();
    const late = lateStart(step.term, request.startBy);
    const ran: HandlerRun =
      late === null
        ? await runHandler(handler, request, step.context, step.leaseLost)
        : { ok: false, reason: late };
    observePhase(this.replica, 'execute', executeMark);
    crashpoint('after-handler');
    if (!ran.ok) {
      log.warn(
        { invocationId, episodeId, ordinal, effect, reason: ran.reason },
        'effect handler failed',
      );
    }
    const recorded = recordRun(request, ran, step.requestObject, step.budgetBefore);
    await this.effects.finish(
      ordinal,
      recorded.objects,
      recorded.row,
      ran.ok ? 'succeeded' : 'failed',
      () => crashpoint('before-outcome'),
    );
    const status = ran.ok ? 'ok' : 'failed';
    this.executed({ invocationId, episodeId, effect, status, ordinal });
    return reply(fence, status, recorded.row, recorded.output, [
      step.requestObject,
      ...recorded.objects,
    ]);
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

/**
 * The episode's worktree when it is usable (rule R8: an episode without a real worktree has no
 * handler). The wire answer stays the constant R8 text; the operator learns the cause here.
 * @throws NoHandlerError when the episode does not exist, has no worktree, or its worktree is
 *   not a usable directory (worktreeProblem)
 */
async function usableWorktree(
  episodeId: string,
  episode: EpisodeView | null,
): Promise<{ view: EpisodeView; worktree: string }> {
  const worktree = episode?.worktree ?? null;
  const problem =
    worktree === null
      ? `the episode ${episode === null ? 'does not exist' : 'has no worktree'}`
      : await worktreeProblem(worktree);
  if (episode === null || worktree === null || problem !== null) {
    log.warn({ episode: episodeId, problem }, `episode ${episodeId} has no usable worktree`);
    throw new NoHandlerError();
  }
  return { view: episode, worktree };
}

/**
 * What tx2 records of a handler run, by the three-arm law (effectRecord, world-internals §5.2):
 * succeeded — the result object, then the record; failed — the record alone (the spend
 * stands). Pure.
 * @returns the objects tx2 writes (after the request object tx1 wrote), the record row and the
 *   reply's output (the result object's JSON, null on failure)
 */
function recordRun(
  request: ExecuteRequest,
  ran: HandlerRun,
  requestObject: WorldObject,
  budgetBefore: number,
): { objects: WorldObject[]; row: RecordRow; output: Record<string, unknown> | null } {
  const { episodeId, invocationId } = request;
  const { effect, scope, cost } = request.effect;
  const ask = { effect, scope, cost };
  const resultObject = ran.ok ? effectResultObject(ran.output) : null;
  const record = effectRecord(
    ask,
    requestObject.hash,
    resultObject === null
      ? { arm: 'failed', budgetBefore }
      : { arm: 'succeeded', budgetBefore, resultRef: resultObject.hash },
  );
  const recordObject = effectRecordObject(record);
  return {
    objects: resultObject === null ? [recordObject] : [resultObject, recordObject],
    row: { ref: recordObject.hash, episodeId, invocationId, record },
    output: resultObject === null ? null : objectJson(resultObject),
  };
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
