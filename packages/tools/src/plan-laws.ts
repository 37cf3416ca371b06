/**
 * The plan laws the planner enforces on every transition output (world-internals §5.4,
 * world-spec §2.5): closed key sets, L1 effect count, L2 effect ids, L3 declared triples, L4
 * payloads, L6 the reserved `world` key, L7 effects ⇔ result. A violation is a host failure
 * (PlanLawError), never a committed refusal: the tool's own code is wrong.
 */
import { canonicalJson } from '@world/canonical';
import {
  PLAN_EFFECT_ID_MAX_CHARS,
  PLAN_MAX_EFFECTS,
  PLAN_PAYLOAD_MAX_BYTES,
  PlanLawError,
  RESERVED_OUTPUT_KEY,
  carriesReservedKey,
  type PlannedEffect,
} from '@world/contracts';
import { isJsonObject, utf8ByteLength, type JsonObject } from './common.js';
import { PLAN_FORMAT, type EffectPlan, type ToolDefinition } from './types.js';

/** The closed key set of a plan (world-internals §5.4). */
const PLAN_KEYS = ['effects', 'finish', 'plan', 'result'] as const;
/** The closed key set of a planned effect (world-internals §5.4). */
const EFFECT_KEYS = ['cost', 'effect', 'id', 'payload', 'scope'] as const;
/** L2: an effect id is 1 to PLAN_EFFECT_ID_MAX_CHARS of [a-z0-9]. */
const EFFECT_ID = new RegExp(`^[a-z0-9]{1,${PLAN_EFFECT_ID_MAX_CHARS}}$`);

function violation(law: string, text: string): PlanLawError {
  return new PlanLawError(`plan law ${law}: ${text}`);
}

/** Throws unless `value` has exactly the keys of `keys` (closed key set). */
function closedKeys(value: JsonObject, keys: readonly string[], what: string): void {
  const extra = Object.keys(value).find((k) => !keys.includes(k));
  if (extra !== undefined)
    throw violation('shape', `${what} key "${extra}" is not part of ${PLAN_FORMAT}`);
  const missing = keys.find((k) => !Object.hasOwn(value, k));
  if (missing !== undefined) throw violation('shape', `${what} lacks key "${missing}"`);
}

/** True when `value` encodes as canonical JSON (RFC 8785). */
function isCanonicalJson(value: unknown): boolean {
  try {
    canonicalJson(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks one planned effect: closed key set, types, L2 id grammar, L3 declared triple, L4 payload.
 * @throws PlanLawError naming the law
 */
function checkEffect(effect: unknown, index: number, tool: ToolDefinition): PlannedEffect {
  const what = `effect ${index}`;
  if (!isJsonObject(effect)) throw violation('shape', `${what} is not a JSON object`);
  closedKeys(effect, EFFECT_KEYS, what);
  const { id, effect: name, scope, cost, payload } = effect;
  if (typeof id !== 'string' || !EFFECT_ID.test(id)) {
    throw violation('L2', `${what} id ${JSON.stringify(id)} must match ${EFFECT_ID.source}`);
  }
  const declared = tool.declaredEffects.some(
    (t) => t.effect === name && t.scope === scope && t.cost === cost,
  );
  if (!declared) {
    throw violation(
      'L3',
      `${what} (${JSON.stringify(name)}, ${JSON.stringify(scope)}, ${JSON.stringify(cost)}) is not a declared effect of ${tool.id}`,
    );
  }
  if (!isJsonObject(payload)) throw violation('L4', `${what} payload must be a JSON object`);
  let bytes: number;
  try {
    bytes = utf8ByteLength(canonicalJson(payload));
  } catch {
    throw violation('L4', `${what} payload is not canonical JSON`);
  }
  if (bytes > PLAN_PAYLOAD_MAX_BYTES) {
    throw violation(
      'L4',
      `${what} payload is ${bytes} bytes of canonical JSON; the limit is ${PLAN_PAYLOAD_MAX_BYTES}`,
    );
  }
  return { id, effect: name as string, scope: scope as string, cost: cost as number, payload };
}

/**
 * Checks a transition's plan against the plan laws (world-internals §5.4) and returns it typed.
 * Order: closed key set and types of the plan (`plan` = world/effect-plan/v1, `effects` an array,
 * `finish` a boolean, `result` null or a JSON object) → each effect (closed keys, L2 id, L3, L4)
 * → L2 ids unique → L1 at most PLAN_MAX_EFFECTS effects → L6 no `world` key in result → L7 zero
 * effects ⇔ non-null result, `finish: true` needs an effect. (Ids are judged before the count
 * so that L2 uniqueness stays checkable while v1 allows one effect.)
 * @param plan the plan a tool's plan() returned (any value)
 * @param tool the tool whose declaredEffects bound L3
 * @throws PlanLawError with `plan law <law>: …` (`plan law shape: …` for the key sets and types)
 */
export function checkPlan(plan: unknown, tool: ToolDefinition): EffectPlan {
  if (!isJsonObject(plan)) throw violation('shape', 'the plan is not a JSON object');
  closedKeys(plan, PLAN_KEYS, 'plan');
  if (plan.plan !== PLAN_FORMAT) throw violation('shape', `plan must be "${PLAN_FORMAT}"`);
  if (!Array.isArray(plan.effects)) throw violation('shape', 'effects must be an array');
  if (typeof plan.finish !== 'boolean') throw violation('shape', 'finish must be a boolean');
  const result = plan.result;
  if (result !== null && !isJsonObject(result))
    throw violation('shape', 'result must be null or a JSON object');
  if (result !== null && !isCanonicalJson(result))
    throw violation('shape', 'result is not canonical JSON');

  const effects = plan.effects.map((e: unknown, i: number) => checkEffect(e, i, tool));
  const ids = new Set<string>();
  for (const e of effects) {
    if (ids.has(e.id)) throw violation('L2', `effect id "${e.id}" is used twice`);
    ids.add(e.id);
  }
  if (effects.length > PLAN_MAX_EFFECTS) {
    throw violation(
      'L1',
      `the plan has ${effects.length} effects; the limit is ${PLAN_MAX_EFFECTS}`,
    );
  }
  if (result !== null && carriesReservedKey(result)) {
    throw violation('L6', `the plan result carries the reserved key "${RESERVED_OUTPUT_KEY}"`);
  }
  if (effects.length === 0 && result === null)
    throw violation('L7', 'a plan without effects must carry a result');
  if (effects.length > 0 && result !== null)
    throw violation('L7', 'a plan with effects must carry a null result');
  if (plan.finish && effects.length === 0)
    throw violation('L7', 'finish: true needs at least one effect');
  return { plan: PLAN_FORMAT, effects, finish: plan.finish, result };
}

/**
 * Checks a finish phase's output (plan law L6, world-internals §5.4): a JSON object (canonical
 * JSON) without the reserved `world` key and without `effects`.
 * @param output what finishPhase returned (any value)
 * @throws PlanLawError with `plan law L6: …` (`plan law shape: …` when not a JSON object)
 */
export function checkFinishOutput(output: unknown): Record<string, unknown> {
  if (!isJsonObject(output) || !isCanonicalJson(output)) {
    throw violation('shape', 'the finish output is not a JSON object');
  }
  if (carriesReservedKey(output)) {
    throw violation('L6', `the finish output carries the reserved key "${RESERVED_OUTPUT_KEY}"`);
  }
  if (Object.hasOwn(output, 'effects'))
    throw violation('L6', 'the finish output carries "effects"');
  return output;
}
