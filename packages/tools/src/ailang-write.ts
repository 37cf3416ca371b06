/**
 * `ailang-write` (world-spec §3.2): create or overwrite one file of the episode worktree through
 * the `Workspace.Write` effect (policy-tool op `write`).
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

const ID = 'ailang-write';
const EFFECT = 'Workspace.Write';
/** Argument names in schema order; the `admits only:` list of the unknown-argument refusal. */
const ARGUMENTS = ['path', 'content'] as const;

/**
 * Plans one `Workspace.Write` with payload `{"op":"write","path","content"}`, no finish
 * (world-spec §3.2; the content is recorded in full in the request object). Refusals, in order:
 * steps 4-5 of §3.0, `path` then `content` missing / not a string, the path rule.
 * @param args the caller's arguments
 */
export function planWrite(args: unknown): EffectPlan {
  const admitted = admitArguments(ID, args, ARGUMENTS);
  if ('refused' in admitted) return refusalPlan(admitted.refused);
  const a = admitted.args;
  const refused =
    requiredStringRefusal(a, 'path') ??
    requiredStringRefusal(a, 'content') ??
    pathRefusal(a.path as string);
  if (refused !== undefined) return refusalPlan(refused);
  return effectPlan(
    EFFECT,
    { op: 'write', path: a.path as string, content: a.content as string },
    false,
  );
}

/** The ailang-write descriptor and transition (world-spec §3.0 table, §3.2). */
export const ailangWrite: ToolDefinition = {
  id: ID,
  title: 'Write (sandboxed)',
  description:
    "Create or overwrite one file inside this episode's worktree with the complete content given. " +
    PATH_RULE_SENTENCE +
    ' Returns {ok:true} when the file was written, or {ok:false, refused} when the plan or ' +
    "AILANG's policy layer refused it (for example .git/ or a path on the deny list). " +
    closingSentences(EFFECT),
  inputSchema: inputSchema(
    {
      path: { type: 'string', description: 'File path, relative to the worktree root' },
      content: { type: 'string', description: 'The complete new file content' },
    },
    ['path', 'content'],
  ),
  outputSchema: outputSchema({ ok: OK_PROPERTY, refused: REFUSED_PROPERTY }),
  access: accessTriple(EFFECT),
  declaredEffects: [declaredTriple(EFFECT)],
  finish: false,
  plan: planWrite,
  sourceUrl: import.meta.url,
};
