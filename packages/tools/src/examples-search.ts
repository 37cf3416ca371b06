/**
 * `examples-search` (world-spec §3.7): search the operator's AILANG examples corpus through
 * `Ailang.Discover` (policy-tool op `examples_search`).
 */
import {
  closingSentences,
  defineTool,
  OK_PROPERTY,
  REFUSED_PROPERTY,
  requiredStringRefusal,
} from './common.js';

const EFFECT = 'Ailang.Discover';

/**
 * The examples-search descriptor and transition (world-spec §3.0 table, §3.7): one
 * `Ailang.Discover` with payload `{"op":"examples_search","query"}`, no finish (the op admits no
 * flags, so there is no limit). Refusals: steps 4-5 of §3.0, then `query` missing / not a string.
 */
export const examplesSearch = defineTool({
  id: 'examples-search',
  title: 'Search AILANG examples',
  description:
    'Search the AILANG examples corpus this deployment serves for query, before writing a ' +
    'construct you are unsure of; read a hit with ailang-cli op examples_show. The search admits ' +
    'no flags, so there is no limit argument. Returns {ok, argv, exit_code, stdout, stderr} with the ' +
    "search's own text in stdout, or {ok:false, refused} when no examples corpus is configured. " +
    closingSentences(EFFECT),
  effect: EFFECT,
  arguments: { query: { type: 'string', description: 'Text to search the examples for' } },
  required: ['query'],
  output: {
    stdout: { type: 'string', description: 'The search results as text' },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  },
  refusal: (a) => requiredStringRefusal(a, 'query'),
  payload: (a) => ({ op: 'examples_search', query: a.query as string }),
  sourceUrl: import.meta.url,
});
