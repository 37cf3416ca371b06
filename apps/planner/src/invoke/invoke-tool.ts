import { Inject, Injectable } from '@nestjs/common';
import { UncertainError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import {
  ENTRY_INDEX_ATTRIBUTE,
  confirmReceipt,
  errorClassOf,
  inSpan,
  serviceLogger,
  withCallContext,
  worldMetrics,
  type CallOutcome,
} from '@world/runtime';
import { ToolRegistry } from '../registry/tool-registry.js';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import { AdmitCall } from './admit-call.js';
import { CallCancellations } from './call-cancellations.js';
import { committedOutcome, failedOutcome } from './call-outcome.js';
import { CommitCall } from './commit-call.js';
import { composeOutput } from './compose-output.js';
import { EffectCall } from './effect-call.js';
import { InvocationClaims } from './invocation-claims.js';
import { spanIds, type Invocation } from './invocation.js';
import { PlanCall, type PlannedCall } from './plan-call.js';
import { isTransient } from './retry-within.js';

type InvokeReply = ReplyOf<'planner.invoke'>;

/** The `tool` label of a call naming no registered tool: caller-chosen names never become labels. */
const UNREGISTERED_TOOL = '(unregistered)';

const log = serviceLogger('planner');

/**
 * The coordinator's use case, one tool call from admission to its committed answer (DESIGN.md
 * §2; world-internals §2.2), in steps: admit (AdmitCall) → claim a keyed call
 * (InvocationClaims) → plan (PlanCall) → a refusal's commit, or the effect under the episode
 * lease and its finish and commit (EffectCall). The commit is retried within the deadline on
 * "no responders" and timeouts, then its claim is given up so it never lands later (or it is
 * found committed); an unknown outcome of a commit under which nothing ran is an UncertainError.
 */
@Injectable()
export class InvokeTool {
  constructor(
    @Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings,
    private readonly registry: ToolRegistry,
    private readonly admitCall: AdmitCall,
    private readonly claims: InvocationClaims,
    private readonly planCall: PlanCall,
    private readonly effectCall: EffectCall,
    private readonly commitCall: CommitCall,
    private readonly cancellations: CallCancellations,
  ) {}

  /**
   * Runs one tool call to its committed answer, counting it in `world_calls_total` by tool,
   * surface and outcome and logging one line when it ends.
   * @throws UnknownToolError (outside the session's surface), TransitionPinMismatchError,
   *   BadRequestError (input not JSON or too large), InvocationInFlightError (keyed resends),
   *   PlanLawError, the broker's typed refusals (LeaseLost, Session*, NoHandler,
   *   DeadlineExceeded), CallCancelledError (its client cancelled it before the hand-off),
   *   EffectsUnrecordedError, UncertainError
   */
  async run(req: ParsedRequestOf<'planner.invoke'>): Promise<InvokeReply> {
    let inv: Invocation;
    try {
      inv = this.admitCall.execute(req, Date.now());
    } catch (err) {
      const tool = this.registry.get(req.toolId)?.descriptor.id ?? UNREGISTERED_TOOL;
      this.count(tool, req.surface, 'failed');
      throw err;
    }
    const tool = inv.tool.descriptor.id;
    return withCallContext({ invocationId: inv.invocationId }, async () => {
      try {
        const reply = await inSpan(
          `execute_tool ${tool}`,
          { ...spanIds(inv), 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool },
          async (span) => {
            const answer = await this.steps(inv);
            span.setAttribute(ENTRY_INDEX_ATTRIBUTE, answer.entryIndex);
            return answer;
          },
        );
        const outcome = committedOutcome(reply.output);
        this.count(tool, req.surface, outcome);
        log.info(
          {
            tool,
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
        this.count(tool, req.surface, outcome);
        log.info(
          { tool, surface: req.surface, outcome, errorClass: errorClassOf(err) },
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

  /**
   * Acknowledges the call to its gateway with this instance's caller id (confirmReceipt) before
   * anything else, and goes on only if the gateway still waits for it: from the receipt on the
   * gateway watches this instance, and a gateway that already answered (no receipt came within
   * INVOKE_RECEIPT_MS: this planner was stopped or overloaded with the request unread) refuses
   * it, so a late planner never claims or runs a call whose caller was told to resend (DESIGN.md
   * §2; world-spec §4.5, §6.5; world-internals §5.5). A call whose gateway asked for no receipt
   * goes on at once.
   * @throws UncertainError when the receipt is refused or not answered: nothing was claimed or
   *   run, and whoever still listens is told to resend the same task id
   */
  private async confirmTaken(): Promise<void> {
    if (!(await confirmReceipt('planner.invoke', { caller: this.settings.caller })))
      throw new UncertainError();
  }

  /**
   * Receipt (confirmTaken), then claim (keyed), plan, then commit the refusal or execute and
   * commit (DESIGN.md §2). A call
   * its client cancelled stops before the claim, or after the plan — the last point before its
   * effect goes to the broker or its refusal to the ledger — with its claim ended, so a resend
   * of its task id runs afresh (CallCancellations). A resend of a committed task id still
   * answers the committed result. The call is tracked for the broker's liveness question only
   * once it holds its claim: a resend refused at the claim never stands for the call holding it.
   */
  private async steps(inv: Invocation): Promise<InvokeReply> {
    await this.confirmTaken();
    this.cancellations.stopIfCancelled(inv);
    if (inv.keyed) {
      const claim = await this.claims.claim(inv);
      if (claim.kind === 'committed') return claim.reply;
      inv.claimToken = claim.claimToken;
    }
    const untrack = this.cancellations.track(inv);
    try {
      return await this.claimedSteps(inv);
    } finally {
      untrack();
    }
  }

  /** Plan, then commit the refusal or execute and commit, for a call holding its claim. */
  private async claimedSteps(inv: Invocation): Promise<InvokeReply> {
    let planned: PlannedCall;
    try {
      planned = await this.planCall.execute(inv);
      this.cancellations.stopIfCancelled(inv);
    } catch (err) {
      await this.claims.end(inv, 'abandoned');
      throw err;
    }
    if (planned.plan.effects.length === 0) return this.commitRefusal(inv, planned);
    return this.effectCall.execute(inv, planned);
  }

  /** A zero-effect plan (a refusal): committed, free, no lease (world-spec §4.4 (B)). */
  private async commitRefusal(inv: Invocation, { plan, planObject }: PlannedCall) {
    const output = composeOutput(plan, planObject.hash, null, null);
    try {
      return await this.commitCall.execute(inv, planObject, output, [], []);
    } catch (err) {
      // Nothing ran: a commit that did not answer is given up (a resend claims it again), or
      // found committed after all; its outcome stays unknown only when the ledger is away.
      if (!isTransient(err)) {
        await this.claims.end(inv, 'abandoned');
        throw err;
      }
      const settled = await this.claims.settle(inv, 'abandoned');
      if (settled.kind === 'committed') return settled.reply;
      throw new UncertainError();
    }
  }
}
