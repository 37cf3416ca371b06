import { Inject, Injectable } from '@nestjs/common';
import { isRef } from '@world/canonical';
import {
  BadRequestError,
  REPLY_GRACE_MS,
  UnknownToolError,
  type ReplyOf,
  type Session,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import { invokePlanner } from '../invoke/invoke-planner.js';
import { ToolSurface } from './tool-surface.js';

/** One A2A tool call, as both A2A surfaces decode it. */
export interface SkillCall {
  /** the idempotency key: tasks/send `params.id`, SendMessage `messageId` (already checked) */
  taskId: string;
  /** the tool the caller names (`metadata.skill_id`) */
  skillId: string;
  /** the arguments object of the one data part, or null when the parts are not exactly that */
  args: Record<string, unknown> | null;
  /** `metadata.transition_fn` as sent; undefined when absent */
  pin: unknown;
}

/**
 * A2A dispatch after the envelope checks, in the order of world-spec §6.5: the skill must be
 * visible to the session → exactly one data part holding an object → a `transition_fn` pin must
 * be a ref equal to the registered source → the call. A well-formed message is one
 * `planner.invoke` on the `a2a` surface with the task id as idempotency key (invocation id
 * `a2a:<episode>:<task>`, world-spec §10) and the pin: the planner admits the skill against the
 * session's grants and checks the pin itself before anything is claimed or runs, so no registry
 * read precedes it. A malformed message (parts, a pin that is no ref) is judged only after the
 * skill's visibility, which only the registry knows: it reads the surface and invokes nothing.
 * The call is sent by invokePlanner, which answers early when the claiming planner is gone.
 */
@Injectable()
export class InvokeSkill {
  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly surface: ToolSurface,
  ) {}

  /**
   * @returns the planner's reply: committed output (and its exact bytes), entry index, world ref;
   *   a resend of a committed task answers its committed output and runs nothing (§4.6)
   * @throws UnknownToolError, BadRequestError (parts, pin), ServiceUnavailableError (the registry
   *   read of a malformed message failed), and whatever `planner.invoke` throws
   *   (TransitionPinMismatch, InvocationInFlight, InvocationNotCommitted, Uncertain,
   *   EffectsUnrecorded, NoHandler, TransportTimeout…)
   */
  async execute(session: Session, call: SkillCall): Promise<ReplyOf<'planner.invoke'>> {
    const { args, pin } = call;
    if (args === null || (pin !== undefined && !isRef(pin))) return this.refuse(session, call);
    return invokePlanner(
      this.rpc,
      {
        surface: 'a2a',
        session,
        toolId: call.skillId,
        arguments: args,
        taskId: call.taskId,
        ...(pin !== undefined && { transitionFn: pin }),
      },
      this.settings.callDeadlineMs + REPLY_GRACE_MS,
    );
  }

  /**
   * The refusal of a malformed message: `not authorized` when the skill is outside the
   * session's surface, else what is wrong with the message.
   * @throws UnknownToolError, BadRequestError, ServiceUnavailableError
   */
  private async refuse(session: Session, call: SkillCall): Promise<never> {
    const tools = await this.surface.snapshot(session);
    if (!tools.some((t) => t.id === call.skillId)) throw new UnknownToolError(call.skillId);
    if (call.args === null) throw new BadRequestError('message must hold exactly one data part');
    throw new BadRequestError('metadata.transition_fn must be a sha256 ref');
  }
}
