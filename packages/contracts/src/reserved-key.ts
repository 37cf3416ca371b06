/**
 * The output key the planner adds itself: every committed tool output carries its `world` block
 * under it (plan law L6, world-internals §5.4), so no plan result, finish output or effect
 * handler output may carry it.
 */
export const RESERVED_OUTPUT_KEY = 'world';

/**
 * Whether an output object already holds the reserved `world` key as an own property (plan law
 * L6): the plan laws refuse such a plan result or finish output, the broker records such a
 * handler output as a failure, and composing the committed output refuses it. Pure.
 */
export function carriesReservedKey(output: object): boolean {
  return Object.hasOwn(output, RESERVED_OUTPUT_KEY);
}
