/**
 * `ailang-read` (world-spec §3.1): read one file of the episode worktree through the
 * `Workspace.Read` effect (policy-tool op `read`).
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
  PATH_RULE_SENTENCE,
  pathRefusal,
  REFUSED_PROPERTY,
  refusalPlan,
  requiredStringRefusal,
} from './common.js';
import type { EffectPlan, ToolDefinition } from './types.js';

const ID = 'ailang-read';
const EFFECT = 'Workspace.Read';
/** Argument names in schema order; the `admits only:` list of the unknown-argument refusal. */
const ARGUMENTS = ['path'] as const;

/**
 * Plans one `Workspace.Read` with payload `{"op":"read","path"}`, no finish (world-spec §3.1).
 * Refusals, in order: steps 4-5 of §3.0, `path` missing / not a string, the path rule.
 * @param args the caller's arguments
 */
export function planRead(args: unknown): EffectPlan {
  const admitted = admitArguments(ID, args, ARGUMENTS);
  if ('refused' in admitted) return refusalPlan(admitted.refused);
  const a = admitted.args;
  const refused = requiredStringRefusal(a, 'path') ?? pathRefusal(a.path as string);
  if (refused !== undefined) return refusalPlan(refused);
  return effectPlan(EFFECT, { op: 'read', path: a.path as string }, false);
}

/** The ailang-read descriptor and transition (world-spec §3.0 table, §3.1, §7.7). */
export const ailangRead: ToolDefinition = {
  id: ID,
  title: 'Read (sandboxed)',
  description:
    "Read one file inside this episode's worktree and return its text. " +
    PATH_RULE_SENTENCE +
    ' Returns {ok:true, content} when the file was read, or {ok:false, refused} when the plan or ' +
    "AILANG's policy layer refused it (for example a path escaping the sandbox or a missing file). " +
    closingSentences(EFFECT),
  inputSchema: inputSchema(
    { path: { type: 'string', description: 'File path, relative to the worktree root' } },
    ['path'],
  ),
  outputSchema: outputSchema({
    content: { type: 'string', description: 'The file text' },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  }),
  access: accessTriple(EFFECT),
  declaredEffects: [declaredTriple(EFFECT)],
  finish: false,
  plan: planRead,
  sourceUrl: import.meta.url,
};
