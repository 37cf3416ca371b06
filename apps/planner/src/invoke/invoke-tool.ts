import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { fromWireObject, type WorldObject } from '@world/canonical';
import {
  BadRequestError,
  EPISODE_LEASE_TTL_MS,
  EffectsUnrecordedError,
  INVOCATION_INPUT_MAX_BYTES,
  MCP_TASK_ID_BYTES,
  PlanLawError,
  REPLY_GRACE_MS,
  SEMANTIC_IDS,
  TransportTimeoutError,
  UncertainError,
  UnknownToolError,
  WorldError,
  invocationIdOf,
  writtenByFor,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import {
  ENTRY_INDEX_ATTRIBUTE,
  EPISODE_ATTRIBUTE,
  INVOCATION_ATTRIBUTE,
  InFlight,
  RPC,
  errorClassOf,
  inSpan,
  observePhase,
  serviceLogger,
  startMark,
  withCallContext,
  worldMetrics,
  type CallOutcome,
  type RpcClient,
} from '@world/runtime';
import { checkFinishOutput, checkPlan, type EffectPlan } from '@world/tools';
import { admits } from '../admission/admits.js';
import {
  BOOKKEEPING_TIMEOUT_MS,
  claimInvocation,
  effectRecordsOf,
  settleCommit,
} from './claim-invocation.js';
import { isTransient, retryWithin } from './retry-within.js';
import { ToolRegistry, type RegisteredTool } from '../registry/tool-registry.js';
import { committedOutcome, failedOutcome } from './call-outcome.js';
import { commitRequestOf } from './commit-request.js';
import { composeOutput, type ComposedEffect } from './compose-output.js';
import { jsonObject, requestHashOf } from './json-object.js';
import { keepEpisodeLease, releaseEpisodeLease } from './keep-lease.js';
import { PLANNER_BACKGROUND, PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';

type InvokeRequest = ParsedRequestOf<'planner.invoke'>;
type InvokeReply = ReplyOf<'planner.invoke'>;

/** Slack added to the execute request's timeout over the broker's own lease wait + handler cap. */
const EXECUTE_MARGIN_MS = 1_000;
/**
 * The part of the post-effect share kept, after the commit's last retry, to settle an
 * unanswered commit (give its claim up, or read it committed) before the gateway stops waiting.
 */
function settleReserveMs(postEffectMs: number): number {
  return postEffectMs / 4;
}

/** The `tool` label of a call naming no registered tool: caller-chosen names never become labels. */
const UNREGISTERED_TOOL = '(unregistered)';

const log = serviceLogger('planner');

/** Everything one invocation carries through its phases. */
interface Invocation {
  req: InvokeRequest;
  tool: RegisteredTool;
  invocationId: string;
  /** a caller key was given: the invocation is claimed in the ledger and exactly-once */
  keyed: boolean;
  /** the claim's token once claimed (keyed calls): it fences the commit and the end */
  claimToken?: string;
  writtenBy: string;
  started: number;
  deadline: number;
  input: WorldObject;
}

/**
 * The coordinator's use case: admit, plan, execute, finish, compose, commit, release
 * (DESIGN.md §2; world-internals §2.2). Anything failing after a handler may have run is an
 * EffectsUnrecordedError carrying the effect record refs, and its effect is never re-run; the
 * commit itself is retried within the deadline on "no responders" and timeouts, then its claim is
 * given up so it never lands later (or it is found committed). An unknown outcome of a commit
 * under which nothing ran is an UncertainError.
 */
@Injectable()
export class InvokeTool {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
    private readonly registry: ToolRegistry,
    @Inject(PLANNER_BACKGROUND) private readonly background: InFlight,
  ) {}

  /**
   * Runs one tool call to its committed answer, counting it in `world_calls_total` by tool,
   * surface and outcome and logging one line when it ends (issue 6 "Operations").
   * @throws UnknownToolError (outside the session's surface), BadRequestError (input too large),
   * InvocationInFlightError (keyed resends), PlanLawError,
   * the broker's typed refusals (LeaseLost, Session*, NoHandler, DeadlineExceeded),
   * EffectsUnrecordedError, UncertainError
   */
  async run(req: InvokeRequest): Promise<InvokeReply> {
    const started = Date.now();
    const tool = this.registry.get(req.toolId);
    if (tool === undefined || !admits(tool.descriptor.access, req.session.grants, started)) {
      this.count(tool?.descriptor.id ?? UNREGISTERED_TOOL, req.surface, 'failed');
      throw new UnknownToolError(req.toolId);
    }
    const keyed = req.taskId !== undefined;
    const taskId = req.taskId ?? randomBytes(MCP_TASK_ID_BYTES).toString('hex');
    const invocationId = invocationIdOf(req.surface, req.session.episodeId, taskId);
    const writtenBy = writtenByFor(req.surface);
    let input: WorldObject;
    try {
      input = jsonObject(SEMANTIC_IDS.invocationInput, writtenBy, req.arguments ?? null);
    } catch {
      this.count(tool.descriptor.id, req.surface, 'failed');
      throw new BadRequestError('arguments are not JSON');
    }
    if (input.payload.length > INVOCATION_INPUT_MAX_BYTES) {
      this.count(tool.descriptor.id, req.surface, 'failed');
      throw new BadRequestError(
        `arguments are ${input.payload.length} bytes; the limit is ${INVOCATION_INPUT_MAX_BYTES}`,
      );
    }
    const inv: Invocation = {
      req,
      tool,
      invocationId,
      keyed,
      writtenBy,
      started,
      deadline: started + this.settings.deadlines.totalMs,
      input,
    };
    return withCallContext({ invocationId }, async () => {
      try {
        const reply = await inSpan(
          `execute_tool ${tool.descriptor.id}`,
          {
            ...spanIds(inv),
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': tool.descriptor.id,
          },
          async (span) => {
            const answer = await this.phases(inv);
            span.setAttribute(ENTRY_INDEX_ATTRIBUTE, answer.entryIndex);
            return answer;
          },
        );
        const outcome = committedOutcome(reply.output);
        this.count(tool.descriptor.id, req.surface, outcome);
        log.info(
          {
            tool: tool.descriptor.id,
            surface: req.surface,
            outcome,
            entryIndex: reply.entryIndex,
            replayed: reply.replayed,
          },
          'call committed',
        );
        return reply;
      } catch (err) {
        const outcome = failedOutcome(err);
        this.count(tool.descriptor.id, req.surface, outcome);
        log.info(
          {
            tool: tool.descriptor.id,
            surface: req.surface,
            outcome,
            errorClass: errorClassOf(err),
          },
          'call failed',
        );
        throw err;
      }
    });
  }

  /** Counts one call in `world_calls_total`. */
  private count(tool: string, surface: string, outcome: CallOutcome): void {
    worldMetrics().calls.inc({ replica: this.settings.replica, tool, surface, outcome });
  }

  /** Claim (keyed), plan, then commit the refusal or execute and commit (DESIGN.md §2). */
  private async phases(inv: Invocation): Promise<InvokeReply> {
    const { req, tool, keyed, writtenBy } = inv;
    if (keyed) {
      const claim = await claimInvocation(this.rpc, {
        invocationId: inv.invocationId,
        // sha256 of the canonical {tool, arguments}, over the input's canonical bytes already made
        requestHash: requestHashOf(inv.req.toolId, inv.input.payload),
        ttlMs: this.settings.deadlines.leaseTtlMs,
      });
      if (claim.kind === 'committed') return claim.reply;
      inv.claimToken = claim.claimToken;
    }
    let plan: EffectPlan;
    const planMark = startMark();
    try {
      plan = await inSpan('plan', spanIds(inv), () =>
        checkPlan(tool.definition.plan(req.arguments), tool.definition),
      );
    } catch (err) {
      await this.end(inv, 'abandoned');
      throw err instanceof WorldError ? err : new PlanLawError('transition execution failed');
    } finally {
      observePhase(this.settings.replica, 'plan', planMark);
    }
    const planObject = jsonObject(SEMANTIC_IDS.effectPlan, writtenBy, plan);
    if (plan.effects.length === 0) return this.commitRefusal(inv, plan, planObject);
    return this.executeAndCommit(inv, plan, planObject);
  }

  /** A zero-effect plan (a refusal): committed, free, no lease (world-spec §4.4 (B)). */
  private async commitRefusal(
    inv: Invocation,
    plan: EffectPlan,
    planObject: WorldObject,
  ): Promise<InvokeReply> {
    const output = composeOutput(plan, planObject.hash, null, null);
    try {
      return await this.commit(inv, planObject, output, [], []);
    } catch (err) {
      // Nothing ran: a commit that did not answer is given up (a resend claims it again), or
      // found committed after all; its outcome stays unknown only when the ledger is away.
      if (!isTransient(err)) {
        await this.end(inv, 'abandoned');
        throw err;
      }
      const settled = await this.settle(inv, 'abandoned');
      if (settled.kind === 'committed') return settled.reply;
      throw new UncertainError();
    }
  }

  /** Executes the plan's one effect under the episode lease, then finishes, composes and commits. */
  private async executeAndCommit(
    inv: Invocation,
    plan: EffectPlan,
    planObject: WorldObject,
  ): Promise<InvokeReply> {
    const d = this.settings.deadlines;
    const effect = plan.effects[0]!;
    const holder = `${this.settings.replica}/${inv.invocationId}`;
    const waitMs = Math.max(0, inv.deadline - Date.now() - d.handlerMs - d.postEffectMs);
    let exec: ReplyOf<'broker.effect.execute'>;
    try {
      exec = await inSpan('execute', spanIds(inv), () =>
        this.rpc.request(
          'broker.effect.execute',
          {
            invocationId: inv.invocationId,
            credentialId: inv.req.session.credentialId,
            episodeId: inv.req.session.episodeId,
            acquire: { holder, ttlMs: EPISODE_LEASE_TTL_MS, waitMs },
            now: inv.started,
            effect,
            handlerMs: d.handlerMs,
          },
          { timeoutMs: waitMs + d.handlerMs + EXECUTE_MARGIN_MS },
        ),
      );
    } catch (err) {
      if (err instanceof TransportTimeoutError) {
        // The broker may have taken the lease and run the handler: fail closed, never retry.
        // Nothing commits it: EffectsUnrecorded (world-spec §4.5) with the records a live
        // broker replica holds for it, if one answers in time.
        await this.end(inv, 'uncertain');
        const lookupMs = Math.max(1, inv.deadline + REPLY_GRACE_MS / 2 - Date.now());
        const { records } = await effectRecordsOf(this.rpc, inv.invocationId, lookupMs).catch(
          () => ({ records: [] as string[] }),
        );
        log.error({ invocationId: inv.invocationId, records }, 'effect execution did not answer');
        throw new EffectsUnrecordedError(inv.invocationId, records, 'effect execution timed out');
      }
      await this.end(inv, err instanceof EffectsUnrecordedError ? 'uncertain' : 'abandoned');
      throw err;
    }
    const records = [exec.recordRef];
    const renewal = keepEpisodeLease(this.rpc, {
      episodeId: inv.req.session.episodeId,
      holder,
      fence: exec.fence,
      invocationId: inv.invocationId,
    });
    // Released without waiting (DESIGN.md §2), but counted: a shutdown waits for it.
    const lease = { episodeId: inv.req.session.episodeId, holder, fence: exec.fence };
    const release = () =>
      void this.background.track(releaseEpisodeLease(this.rpc, lease, inv.invocationId));
    try {
      const composed: ComposedEffect = {
        id: effect.id,
        status: exec.status,
        record: exec.recordRef,
        output: exec.output,
      };
      let finishOutput: Record<string, unknown> | null = null;
      if (plan.finish) {
        const finishPhase = inv.tool.definition.finishPhase;
        if (finishPhase === undefined)
          throw new PlanLawError('plan asks for a finish phase the tool does not have');
        const finishMark = startMark();
        try {
          finishOutput = await inSpan('finish', spanIds(inv), () =>
            checkFinishOutput(
              finishPhase(inv.req.arguments, [
                {
                  id: effect.id,
                  effect: effect.effect,
                  status: exec.status,
                  record: exec.recordRef,
                  output: exec.output,
                },
              ]),
            ),
          );
        } finally {
          observePhase(this.settings.replica, 'finish', finishMark);
        }
      }
      const output = composeOutput(plan, planObject.hash, composed, finishOutput);
      const brokerObjects = exec.objects.map((o, i) => fromWireObject(o, `objects[${i}]`));
      return await this.commit(inv, planObject, output, records, brokerObjects);
    } catch (err) {
      // The handler ran. Give the claim up, so no late commit of it can land, unless that
      // commit landed first; either way the answer is final (world-spec §4.5; issue 11 item 1).
      const cause = err instanceof Error ? err.message : String(err);
      const settled = await this.settle(inv, 'uncertain');
      if (settled.kind === 'committed') return settled.reply;
      log.error(
        { invocationId: inv.invocationId, records, cause, claim: settled.kind },
        'effects unrecorded',
      );
      throw new EffectsUnrecordedError(inv.invocationId, records, cause);
    } finally {
      void renewal.stop();
      release();
    }
  }

  /** Builds the call's commit (commitRequestOf) and commits one log entry. */
  private async commit(
    inv: Invocation,
    plan: WorldObject,
    output: Record<string, unknown>,
    records: string[],
    brokerObjects: WorldObject[],
  ): Promise<InvokeReply> {
    const { request, outputRef, outputBytes } = commitRequestOf({
      invocationId: inv.invocationId,
      episodeId: inv.req.session.episodeId,
      writtenBy: inv.writtenBy,
      descriptor: inv.tool.descriptor,
      input: inv.input,
      plan,
      output,
      records,
      brokerObjects,
      claimToken: inv.claimToken,
    });
    const commitMark = startMark();
    // Retried within the call's deadline on "no responders" and timeouts (issue 14 fault 1): a
    // resend of a commit that landed answers its first result (the journal is keyed by id).
    const postEffectMs = this.settings.deadlines.postEffectMs;
    const committed = await inSpan('commit', spanIds(inv), async (span) => {
      const answer = await retryWithin(
        Math.max(inv.deadline, Date.now() + postEffectMs) - settleReserveMs(postEffectMs),
        postEffectMs,
        (timeoutMs) => this.rpc.request('ledger.commit', request, { timeoutMs }),
      );
      span.setAttribute(ENTRY_INDEX_ATTRIBUTE, answer.entryIndex);
      return answer;
    }).finally(() => observePhase(this.settings.replica, 'commit', commitMark));
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

  /**
   * Settles a commit that did not answer (settleCommit) within the time kept for it after the
   * commit's retries: the answer reaches the gateway before its own wait ends.
   */
  private settle(inv: Invocation, reason: 'uncertain' | 'abandoned') {
    // Half the gateway's grace beyond the deadline: the answer still arrives before it gives up.
    const until = Math.max(inv.deadline, Date.now()) + REPLY_GRACE_MS / 2;
    return settleCommit(this.rpc, inv.invocationId, inv.claimToken, reason, until);
  }

  /** Marks a keyed invocation's claim ended (best effort: a lapsed claim ends by itself). */
  private async end(inv: Invocation, reason: 'uncertain' | 'abandoned'): Promise<void> {
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
}

/**
 * The World ids a call's spans carry (never its arguments or results): invocation id, episode,
 * tool (OpenTelemetry GenAI conventions name the tool `gen_ai.tool.name`).
 */
function spanIds(inv: Invocation): Record<string, string> {
  return {
    [INVOCATION_ATTRIBUTE]: inv.invocationId,
    [EPISODE_ATTRIBUTE]: inv.req.session.episodeId,
    'gen_ai.tool.name': inv.tool.descriptor.id,
  };
}
