/**
 * `examples-search` (world-spec §3.7): search the operator's AILANG examples corpus through
 * `Ailang.Discover` (policy-tool op `examples_search`).
 */
import {
  accessTriple,
  admitArguments,
  closingSentences,
  declaredTriple,
  effectPlan,
  inputSchema,
  OK_PROPERTY,
  outputSchema,
  REFUSED_PROPERTY,
  refusalPlan,
  requiredStringRefusal,
} from './common.js';
import type { EffectPlan, ToolDefinition } from './types.js';

const ID = 'examples-search';
const EFFECT = 'Ailang.Discover';
/** Argument names in schema order; the `admits only:` list of the unknown-argument refusal. */
const ARGUMENTS = ['query'] as const;

/**
 * Plans one `Ailang.Discover` with payload `{"op":"examples_search","query"}`, no finish
 * (world-spec §3.7; the op admits no flags, so there is no limit). Refusals: steps 4-5 of §3.0,
 * then `query` missing / not a string.
 * @param args the caller's arguments
 */
export function planExamplesSearch(args: unknown): EffectPlan {
  const admitted = admitArguments(ID, args, ARGUMENTS);
  if ('refused' in admitted) return refusalPlan(admitted.refused);
  const a = admitted.args;
  const refused = requiredStringRefusal(a, 'query');
  if (refused !== undefined) return refusalPlan(refused);
  return effectPlan(EFFECT, { op: 'examples_search', query: a.query as string }, false);
}

/** The examples-search descriptor and transition (world-spec §3.0 table, §3.7). */
export const examplesSearch: ToolDefinition = {
  id: ID,
  title: 'Search AILANG examples',
  description:
    'Search the AILANG examples corpus this deployment serves for query, before writing a ' +
    'construct you are unsure of; read a hit with ailang-cli op examples_show. The search admits ' +
    'no flags, so there is no limit argument. Returns {ok, argv, exit_code, stdout, stderr} with the ' +
    "search's own text in stdout, or {ok:false, refused} when no examples corpus is configured. " +
    closingSentences(EFFECT),
  inputSchema: inputSchema(
    { query: { type: 'string', description: 'Text to search the examples for' } },
    ['query'],
  ),
  outputSchema: outputSchema({
    stdout: { type: 'string', description: 'The search results as text' },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  }),
  access: accessTriple(EFFECT),
  declaredEffects: [declaredTriple(EFFECT)],
  finish: false,
  plan: planExamplesSearch,
  sourceUrl: import.meta.url,
};
