/**
 * `ailang-edit` (world-spec §3.3): replace one exact occurrence of a text in one file of the
 * episode worktree through the `Workspace.Write` effect (policy-tool op `edit`).
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

const ID = 'ailang-edit';
const EFFECT = 'Workspace.Write';
/** Argument names in schema order; the `admits only:` list of the unknown-argument refusal. */
const ARGUMENTS = ['path', 'old_text', 'new_text'] as const;

/**
 * Plans one `Workspace.Write` with payload `{"op":"edit","path","old_text","new_text"}`, no
 * finish (world-spec §3.3). Refusals, in order: steps 4-5 of §3.0, `path`, `old_text`,
 * `new_text` missing / not a string, the path rule. Uniqueness of old_text is the handler's.
 * @param args the caller's arguments
 */
export function planEdit(args: unknown): EffectPlan {
  const admitted = admitArguments(ID, args, ARGUMENTS);
  if ('refused' in admitted) return refusalPlan(admitted.refused);
  const a = admitted.args;
  const refused =
    requiredStringRefusal(a, 'path') ??
    requiredStringRefusal(a, 'old_text') ??
    requiredStringRefusal(a, 'new_text') ??
    pathRefusal(a.path as string);
  if (refused !== undefined) return refusalPlan(refused);
  return effectPlan(
    EFFECT,
    {
      op: 'edit',
      path: a.path as string,
      old_text: a.old_text as string,
      new_text: a.new_text as string,
    },
    false,
  );
}

/** The ailang-edit descriptor and transition (world-spec §3.0 table, §3.3). */
export const ailangEdit: ToolDefinition = {
  id: ID,
  title: 'Edit (sandboxed)',
  description:
    "Replace old_text with new_text in one file inside this episode's worktree; old_text must " +
    'occur exactly once, so include enough surrounding context to make it unique. ' +
    PATH_RULE_SENTENCE +
    ' Returns {ok:true} when the file was changed, or {ok:false, refused} when the plan or the ' +
    'handler refused it (old_text absent or not unique, a read-only path). ' +
    closingSentences(EFFECT),
  inputSchema: inputSchema(
    {
      path: { type: 'string', description: 'File path, relative to the worktree root' },
      old_text: { type: 'string', description: 'Exact text to replace (must occur exactly once)' },
      new_text: { type: 'string', description: 'Replacement text' },
    },
    ['path', 'old_text', 'new_text'],
  ),
  outputSchema: outputSchema({ ok: OK_PROPERTY, refused: REFUSED_PROPERTY }),
  access: accessTriple(EFFECT),
  declaredEffects: [declaredTriple(EFFECT)],
  finish: false,
  plan: planEdit,
  sourceUrl: import.meta.url,
};
