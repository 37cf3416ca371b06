import { Inject, Injectable } from '@nestjs/common';
import type { WorldObject } from '@world/canonical';
import { PlanLawError, SEMANTIC_IDS, WorldError } from '@world/contracts';
import { inSpan, observePhase, startMark } from '@world/runtime';
import { checkPlan, type EffectPlan } from '@world/tools';
import { PLANNER_SETTINGS, type PlannerSettings } from '../settings.js';
import { spanIds, type Invocation } from './invocation.js';
import { jsonObject } from './json-object.js';

/** A call's checked plan and the plan object its commit names. */
export interface PlannedCall {
  plan: EffectPlan;
  planObject: WorldObject;
}

/**
 * The plan step: the tool's pure plan function on the call's arguments, held to the plan laws
 * (checkPlan, world-internals §5.4), timed as the `plan` phase. A plan with no effect is a
 * refusal (world-spec §4.4 (B)).
 */
@Injectable()
export class PlanCall {
  constructor(@Inject(PLANNER_SETTINGS) private readonly settings: PlannerSettings) {}

  /**
   * @throws the transition's typed refusals as they are, PlanLawError (`transition execution
   *   failed`) for anything untyped it throws
   */
  async execute(inv: Invocation): Promise<PlannedCall> {
    const mark = startMark();
    let plan: EffectPlan;
    try {
      plan = await inSpan('plan', spanIds(inv), () =>
        checkPlan(inv.tool.definition.plan(inv.req.arguments), inv.tool.definition),
      );
    } catch (err) {
      throw err instanceof WorldError ? err : new PlanLawError('transition execution failed');
    } finally {
      observePhase(this.settings.replica, 'plan', mark);
    }
    return { plan, planObject: jsonObject(SEMANTIC_IDS.effectPlan, inv.writtenBy, plan) };
  }
}
