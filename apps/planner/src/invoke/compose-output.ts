import type { Ref } from '@world/canonical';
import {
  PlanLawError,
  RESERVED_OUTPUT_KEY,
  carriesReservedKey,
  type EffectStatus,
} from '@world/contracts';
import type { EffectPlan } from '@world/tools';

/** One executed (or denied) effect as the output's world block reports it. */
export interface ComposedEffect {
  id: string;
  status: EffectStatus;
  record: Ref;
  /** the handler's output object when status is ok, else null */
  output: Record<string, unknown> | null;
}

/** The world block every result object carries (world-spec §4.2). */
interface WorldBlock {
  effects: Array<{ id: string; status: EffectStatus; record: Ref | null }>;
  plan: Ref;
}

/**
 * Composes the output object of a call (world-spec §4.2–§4.4, world-internals §5.4):
 * zero effects → the plan's result; one ok effect without finish → the handler's output; a denied
 * or failed effect without finish → nothing but the world block; a finish phase → its output;
 * always plus the reserved `world` block.
 * @throws PlanLawError when the body already holds the reserved `world` key (plan law L6)
 */
export function composeOutput(
  plan: EffectPlan,
  planRef: Ref,
  effect: ComposedEffect | null,
  finishOutput: Record<string, unknown> | null,
): Record<string, unknown> {
  let body: Record<string, unknown>;
  if (plan.effects.length === 0) body = plan.result ?? {};
  else if (finishOutput !== null) body = finishOutput;
  else if (effect !== null && effect.status === 'ok' && effect.output !== null)
    body = effect.output;
  else body = {};
  if (carriesReservedKey(body)) {
    throw new PlanLawError(
      `plan law L6: the reserved key "${RESERVED_OUTPUT_KEY}" appears in a transition or handler output`,
    );
  }
  const world: WorldBlock = {
    effects:
      effect === null ? [] : [{ id: effect.id, status: effect.status, record: effect.record }],
    plan: planRef,
  };
  return { ...body, world };
}
