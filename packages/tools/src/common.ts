/**
 * What every tool shares (world-spec §3.0): the path rule, the argument checks of plan-check steps
 * 4-6 with their exact refusal strings, the plan builders, the descriptor pieces, the
 * single-result guard of the two finish phases (world-spec §3.4, §3.6), and defineTool, which
 * builds a tool from what its own file states.
 *
 * Argument checks return the refusal text, or `undefined` when the argument passes, so a tool
 * chains them with `??` and the first refusal in the documented order wins.
 */
import type { EffectTriple } from '@world/contracts';
import { TOOL_ACCESS_COST, TOOL_EFFECT_COST } from '@world/contracts';
import { PLAN_FORMAT, type EffectPlan, type EffectResult, type ToolDefinition } from './types.js';

/** Every tool's effects act on the episode's worktree (world-spec §3.0). */
const WORKTREE_SCOPE = 'worktree';
/** Tools plan one effect and always name it `e1` (world-spec §2.5). */
const EFFECT_ID = 'e1';

/** A JSON object as a transition sees one: a plain, non-null, non-array object. */
export type JsonObject = Record<string, unknown>;

/**
 * True for a plain JSON object (what JSON.parse yields for `{…}`): not null, not an array, not a
 * class instance.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The plan's path predicate `pathOk`, exactly (world-spec §3.0 [code]): non-empty; not starting
 * with `/` or `-`; no `..` segment, i.e. not `..`, not starting with `../`, not ending with `/..`,
 * not containing `/../`. A segment merely starting with `..` (`..a/b.ail`, `a/..b.ail`) and an
 * inner `-` (`a/-b.ail`) are legal. Only a clear early refusal: confinement is the handler's.
 * @param path the caller's path argument
 * @returns whether the plan may name this path
 * @internal exported for common.spec.ts, registry.spec.ts
 */
export function checkPath(path: string): boolean {
  return (
    path.length >= 1 &&
    !path.startsWith('/') &&
    !path.startsWith('-') &&
    path !== '..' &&
    !path.startsWith('../') &&
    !path.endsWith('/..') &&
    !path.includes('/../')
  );
}

/** The refusal for a path that fails checkPath (world-spec §3.0), or undefined when it passes. */
export function pathRefusal(path: string): string | undefined {
  return checkPath(path)
    ? undefined
    : `path "${path}" refused: it must be relative and non-empty, with no ".." segment and no leading "-"`;
}

/**
 * A zero-effect plan carrying `{ok:false, refused}` (world-spec §2.5): the refusal is committed,
 * costs nothing, and reaches the caller as the result.
 */
function refusalPlan(refused: string): EffectPlan {
  return { plan: PLAN_FORMAT, effects: [], finish: false, result: { ok: false, refused } };
}

/**
 * The one-effect plan every tool emits: id `e1`, scope `worktree`, cost 1 — one of the
 * descriptor's declared triples (plan law L3), result null (L7).
 * @param effect the effect name (e.g. `Workspace.Read`)
 * @param payload the handler request, a JSON object (L4)
 * @param finish whether the tool's finish phase runs after the effect
 */
function effectPlan(effect: string, payload: JsonObject, finish: boolean): EffectPlan {
  return {
    plan: PLAN_FORMAT,
    effects: [{ id: EFFECT_ID, effect, scope: WORKTREE_SCOPE, cost: TOOL_EFFECT_COST, payload }],
    finish,
    result: null,
  };
}

/** The outcome of plan-check steps 4-5: the arguments object, or the refusal. */
type Admitted = { args: JsonObject } | { refused: string };

/**
 * Plan-check steps 4-5 (world-spec §3.0 [code]): absent arguments → `the input carries no args`;
 * not a JSON object → `arguments must be a JSON object`; the first key outside `names`, in the
 * object's own key order → `unknown argument "<k>"; <tool> admits only: <names joined by ", ">`.
 *
 * Key order is the caller's JSON order, as JavaScript preserves insertion order, with one caveat:
 * integer-like keys ("5", "12") always enumerate first, ascending, so with several unknown keys an
 * integer-like one is named even when it came later in the caller's text.
 * @param tool the tool id named in the refusal
 * @param args the caller's arguments (any JSON value, or undefined when absent)
 * @param names the tool's argument names in schema order
 * @internal exported for common.spec.ts
 */
export function admitArguments(tool: string, args: unknown, names: readonly string[]): Admitted {
  if (args === undefined) return { refused: 'the input carries no args' };
  if (!isJsonObject(args)) return { refused: 'arguments must be a JSON object' };
  const unknown = Object.keys(args).find((key) => !names.includes(key));
  if (unknown !== undefined) {
    return { refused: `unknown argument "${unknown}"; ${tool} admits only: ${names.join(', ')}` };
  }
  return { args };
}

/**
 * A required string argument (world-spec §3.0): absent → `missing required argument "<k>"`;
 * present but not a string (null included) → `argument "<k>" must be a string`.
 */
export function requiredStringRefusal(args: JsonObject, key: string): string | undefined {
  if (!Object.hasOwn(args, key)) return `missing required argument "${key}"`;
  return optionalStringRefusal(args, key);
}

/**
 * An optional string argument: absent passes; present but not a string (null included) →
 * `argument "<k>" must be a string` (world-spec §3.0).
 */
export function optionalStringRefusal(args: JsonObject, key: string): string | undefined {
  if (!Object.hasOwn(args, key)) return undefined;
  return typeof args[key] === 'string' ? undefined : `argument "${key}" must be a string`;
}

/**
 * An optional path argument: its string check, then the path rule (world-spec §3.8: `path` and
 * `package` of ailang-cli).
 */
export function optionalPathRefusal(args: JsonObject, key: string): string | undefined {
  return (
    optionalStringRefusal(args, key) ??
    (Object.hasOwn(args, key) ? pathRefusal(args[key] as string) : undefined)
  );
}

/** Size of a string in UTF-8 bytes, the unit of every tool bound (world-spec §3.5). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A string field of a JSON value, or "" when absent or not a string (finish-phase reads). */
export function stringField(value: unknown, key: string): string {
  if (!isJsonObject(value)) return '';
  const field = value[key];
  return typeof field === 'string' ? field : '';
}

/** The `access` triple of every tool: scope worktree, cost 0 (world-spec §3.0). */
function accessTriple(effect: string): EffectTriple {
  return { effect, scope: WORKTREE_SCOPE, cost: TOOL_ACCESS_COST };
}

/** A declared effect triple: scope worktree, cost 1 (world-spec §3.0). */
function declaredTriple(effect: string): EffectTriple {
  return { effect, scope: WORKTREE_SCOPE, cost: TOOL_EFFECT_COST };
}

/** The reserved `world` block as the output schemas describe it (world-spec §4.2). */
const WORLD_PROPERTY = {
  type: 'object',
  description: "World's provenance: the plan ref and the effect record refs",
  properties: {
    plan: {
      type: 'string',
      description: 'Ref of the world/effect-plan/v1 object this call produced',
    },
    effects: {
      type: 'array',
      description: 'The planned effects in order (zero or one)',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          status: { type: 'string', enum: ['ok', 'failed', 'denied'] },
          record: { type: ['string', 'null'], description: "Ref of the broker's effect record" },
        },
      },
    },
  },
};

/** `ok` and `refused`, present in every tool's output schema (world-spec §3.1-§3.8). */
export const OK_PROPERTY = { type: 'boolean', description: 'False when the call was refused' };
export const REFUSED_PROPERTY = {
  type: 'string',
  description: 'Why the call was refused (plan, policy or handler)',
};

/**
 * An input schema: an object of the given properties, `required` as listed, and
 * `additionalProperties: false` (world-spec §3.0 strict arguments).
 */
function inputSchema(properties: JsonObject, required: readonly string[]): JsonObject {
  return { type: 'object', properties, required: [...required], additionalProperties: false };
}

/**
 * An output schema: the tool's own properties plus the reserved `world` block, which is the one
 * required property (world-spec §3.0).
 */
function outputSchema(properties: JsonObject): JsonObject {
  return {
    type: 'object',
    properties: { ...properties, world: WORLD_PROPERTY },
    required: ['world'],
  };
}

/** The path sentence every worktree tool's description carries (world-spec §3.0, §8.2). */
export const PATH_RULE_SENTENCE =
  'Paths are relative to the worktree root, non-empty, with no ".." segment and no leading "-" ' +
  '(such a path is refused before anything runs); anything that still resolves outside the ' +
  "worktree (an absolute path, a symlink leading out) is refused by AILANG's policy layer, and " +
  ".git/ plus the operator's deny list stay read-only.";

/** The strictness, cost and provenance sentences of every description (world-spec §3.0). */
export function closingSentences(effect: string): string {
  return (
    'Unknown argument keys are refused, never ignored, and a refused plan costs nothing. ' +
    `Each call that runs costs one ${effect} call from the session's budget. ` +
    'Every call, refusals and denials included, commits exactly one World log entry, and the ' +
    'result carries `world`: the ref of the effect plan and the record ref of the brokered effect.'
  );
}

/**
 * A finish output for an effect that yielded no usable report (world-spec §3.4 [code]); never
 * carries `world` or `effects` (plan law L6).
 */
export function finishFailure(status: string, refused: string): JsonObject {
  return { ok: false, status, refused };
}

/**
 * The guard both finish phases run before reading a report (world-spec §3.4 [code]): results
 * absent → `the finish input carries no results`; not an array → `results must be a JSON array`;
 * not exactly one → `expected exactly one effect result` (all with status ""); a status other
 * than ok → `the <effect> effect ended <status>`; no output (absent or null) → `the effect result
 * carries no output` (status ok).
 * @param effect the effect name the refusal names (`Ailang.Check`, `Ailang.Discover`)
 * @param results the finish input's results (any value; the planner passes EffectResult[])
 * @returns the one handler output object, or the finish failure to return as is
 */
export function soleEffectOutput(
  effect: string,
  results: unknown,
): { output: JsonObject } | { failure: JsonObject } {
  if (results === undefined)
    return { failure: finishFailure('', 'the finish input carries no results') };
  if (!Array.isArray(results))
    return { failure: finishFailure('', 'results must be a JSON array') };
  if (results.length !== 1)
    return { failure: finishFailure('', 'expected exactly one effect result') };
  const result = results[0] as Partial<EffectResult> | null;
  const status = stringField(result, 'status');
  if (status !== 'ok')
    return { failure: finishFailure(status, `the ${effect} effect ended ${status}`) };
  const output = (result as JsonObject).output;
  if (!isJsonObject(output))
    return { failure: finishFailure(status, 'the effect result carries no output') };
  return { output };
}

/** What a tool's file states: its descriptor fields and the parts of its transition. */
export interface ToolSpec {
  /** tool id = MCP tool name = A2A skill id */
  id: string;
  /** A2A skill `name`, exact titles of world-spec §3.0 */
  title: string;
  description: string;
  /** the effect the access triple names and a plan requests unless effectOf says otherwise */
  effect: string;
  /** further effects a plan may request, declared after `effect` (ailang-run's variants) */
  alsoDeclared?: readonly string[];
  /** the argument properties in schema order: their names are the `admits only:` list */
  arguments: JsonObject;
  /** the required argument names */
  required: readonly string[];
  /** the result properties, in the section's order; the `world` block is added last */
  output: JsonObject;
  /** the tool's own argument refusals after plan-check steps 4-5, the first in its order wins */
  refusal(args: JsonObject): string | undefined;
  /** the one effect's payload, from arguments that passed every refusal */
  payload(args: JsonObject): JsonObject;
  /** the effect a payload needs, when it depends on the arguments (default: `effect`) */
  effectOf?(payload: JsonObject): string;
  /** the pure finish phase (world-spec §2.4 [code]); its presence sets `finish: true` */
  finish?(args: unknown, results: EffectResult[]): JsonObject;
  /** import.meta.url of the tool's module (its transition source with this one, DESIGN.md §4) */
  sourceUrl: string;
}

/**
 * Builds a tool from its spec (world-spec §3.0 [code]): the strict input schema, the output
 * schema with `world`, the access triple (cost 0) and declared triples (cost 1), and the plan
 * every tool runs — steps 4-5 (admitArguments over the argument names), the tool's refusals,
 * then one `e1` effect with its payload (finish as the spec has a finish phase), or a refusal
 * plan carrying the first refusal.
 * @param spec what the tool's file states
 * @returns the tool's definition, as the registry lists it
 */
export function defineTool(spec: ToolSpec): ToolDefinition {
  const names = Object.keys(spec.arguments);
  const finish = spec.finish !== undefined;
  const plan = (args: unknown): EffectPlan => {
    const admitted = admitArguments(spec.id, args, names);
    if ('refused' in admitted) return refusalPlan(admitted.refused);
    const refused = spec.refusal(admitted.args);
    if (refused !== undefined) return refusalPlan(refused);
    const payload = spec.payload(admitted.args);
    return effectPlan(spec.effectOf?.(payload) ?? spec.effect, payload, finish);
  };
  const effects = [spec.effect, ...(spec.alsoDeclared ?? [])];
  return {
    id: spec.id,
    title: spec.title,
    description: spec.description,
    inputSchema: inputSchema(spec.arguments, spec.required),
    outputSchema: outputSchema(spec.output),
    access: accessTriple(spec.effect),
    declaredEffects: effects.map(declaredTriple),
    finish,
    plan,
    ...(spec.finish === undefined ? {} : { finishPhase: spec.finish }),
    sourceUrl: spec.sourceUrl,
  };
}

/** The `path` argument of every file tool (world-spec §3.1-§3.3), first in its schema. */
const PATH_ARGUMENT = { type: 'string', description: 'File path, relative to the worktree root' };

/** What a file tool's module states (ailang-read, ailang-write, ailang-edit). */
export interface FileToolSpec {
  id: string;
  title: string;
  /** the description's opening sentences, before the path rule */
  does: string;
  /** the description's `Returns …` sentence, after the path rule */
  returns: string;
  effect: string;
  /** the handler op the payload names (`read`, `write`, `edit`) */
  op: string;
  /** the string arguments after `path`, in schema order; each is required */
  fields: JsonObject;
  output: JsonObject;
  sourceUrl: string;
}

/**
 * A tool on one worktree file (world-spec §3.0 table, §3.1-§3.3): arguments `path` then
 * `fields`, all required strings; description = does, the path rule, returns, the closing
 * sentences; refusals, in order: steps 4-5 of §3.0, `path` then each field missing / not a
 * string, the path rule; one effect with payload `{op, path, …fields}`, no finish.
 */
export function defineFileTool(spec: FileToolSpec): ToolDefinition {
  const names = Object.keys(spec.fields);
  return defineTool({
    id: spec.id,
    title: spec.title,
    description: `${spec.does} ${PATH_RULE_SENTENCE} ${spec.returns} ${closingSentences(spec.effect)}`,
    effect: spec.effect,
    arguments: { path: PATH_ARGUMENT, ...spec.fields },
    required: ['path', ...names],
    output: spec.output,
    refusal: (a) =>
      requiredStringRefusal(a, 'path') ??
      names.reduce<string | undefined>(
        (r, name) => r ?? requiredStringRefusal(a, name),
        undefined,
      ) ??
      pathRefusal(a.path as string),
    payload: (a) => ({
      op: spec.op,
      path: a.path as string,
      ...Object.fromEntries(names.map((name) => [name, a[name] as string])),
    }),
    sourceUrl: spec.sourceUrl,
  });
}

/**
 * The module URL of these shared checks: every tool's transition source is its own module's text
 * followed by this module's, so a change to a shared check changes every tool's transitionFn.
 */
export const COMMON_SOURCE_URL: string = import.meta.url;
