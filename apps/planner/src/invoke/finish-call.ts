import { Inject, Injectable } from '@nestjs/common';
import { PlanLawError, type ReplyOf } from '@world/contracts';
import { inSpan, observePhase, startMark } from '@world/runtime';
import { checkFinishOutput, type EffectPlan } from '@world/tools';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import { spanIds, type Invocation } from './invocation.js';

/**
 * The finish step of a plan that asks for one (ailang-check, builtins-search): the tool's pure
 * finish function on the arguments and the effect's outcome, its output held to the finish laws
 * (checkFinishOutput, world-internals §5.4), timed as the `finish` phase.
 */
@Injectable()
export class FinishCall {
  constructor(@Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings) {}

  /**
   * @param effect the plan's one effect
   * @param exec the broker's answer for it
   * @returns the finish output, or null when the plan asks for no finish
   * @throws PlanLawError when the plan asks for a finish the tool does not have, or the output
   *   breaks a law
   */
  async execute(
    inv: Invocation,
    plan: EffectPlan,
    exec: ReplyOf<'broker.effect.execute'>,
  ): Promise<Record<string, unknown> | null> {
    if (!plan.finish) return null;
    const finishPhase = inv.tool.definition.finishPhase;
    if (finishPhase === undefined)
      throw new PlanLawError('plan asks for a finish phase the tool does not have');
    const effect = plan.effects[0]!;
    const mark = startMark();
    try {
      return await inSpan('finish', spanIds(inv), () =>
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
      observePhase(this.settings.replica, 'finish', mark);
    }
  }
}
