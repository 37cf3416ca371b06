import type { EffectTriple, PlannedEffect } from '@world/contracts';

/** The semantic id and `plan` field of every effect plan (world-spec §2.5). */
export const PLAN_FORMAT = 'world/effect-plan/v1';

/**
 * A `world/effect-plan/v1` plan (world-spec §2.5): at most one effect, or none plus a non-null
 * result (a refusal). `finish: true` asks the planner to run the tool's finish phase after the
 * effect. Stored as canonical JSON, so identical plans have identical refs.
 */
export interface EffectPlan {
  plan: typeof PLAN_FORMAT;
  effects: PlannedEffect[];
  finish: boolean;
  result: Record<string, unknown> | null;
}

/**
 * What a finish phase receives for each planned effect (world-spec §2.4 [code]): its id, its
 * effect name, how it ended, the ref of its effect record and the handler's output object
 * (`null` when the effect was denied or failed).
 */
export interface EffectResult {
  id: string;
  effect: string;
  status: 'ok' | 'failed' | 'denied';
  record: string | null;
  output: Record<string, unknown> | null;
}

/**
 * One tool: its served descriptor fields plus its pure transition (plan, and finish for
 * ailang-check and builtins-search). world-spec §2.4, §3.0, §7.7.
 */
export interface ToolDefinition {
  /** tool id = MCP tool name = A2A skill id */
  id: string;
  /** A2A skill `name`, exact titles of world-spec §3.0 */
  title: string;
  description: string;
  /** JSON Schema of the arguments object; always `additionalProperties: false` */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the result object; always `required: ["world"]` */
  outputSchema: Record<string, unknown>;
  /** visibility triple: cost 0, so one grant per effect name both admits and pays */
  access: EffectTriple;
  /** the exact triples a plan may request (plan law L3) */
  declaredEffects: EffectTriple[];
  finish: boolean;
  /** pure: the caller's arguments (any JSON value) → a plan (one effect, or none + refusal result) */
  plan(args: unknown): EffectPlan;
  /** pure, only for tools with finish: true */
  finishPhase?(args: unknown, results: EffectResult[]): Record<string, unknown>;
  /** import.meta.url of the module that holds this tool's plan/finish code: its built text is the
   *  tool's transition source, hashed into transitionFn (DESIGN.md §4) */
  sourceUrl: string;
}
