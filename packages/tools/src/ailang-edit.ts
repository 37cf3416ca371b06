/**
 * `ailang-edit` (world-spec §3.3): replace one exact occurrence of a text in one file of the
 * episode worktree through the `Workspace.Write` effect (policy-tool op `edit`).
 */
import { defineFileTool, OK_PROPERTY, REFUSED_PROPERTY } from './common.js';

/**
 * The ailang-edit descriptor and transition (world-spec §3.0 table, §3.3): one
 * `Workspace.Write` with payload `{"op":"edit","path","old_text","new_text"}`, no finish.
 * Refusals, in order: steps 4-5 of §3.0, `path`, `old_text`, `new_text` missing / not a string,
 * the path rule. Uniqueness of old_text is the handler's.
 */
export const ailangEdit = defineFileTool({
  id: 'ailang-edit',
  title: 'Edit (sandboxed)',
  does:
    "Replace old_text with new_text in one file inside this episode's worktree; old_text must " +
    'occur exactly once, so include enough surrounding context to make it unique.',
  returns:
    'Returns {ok:true} when the file was changed, or {ok:false, refused} when the plan or the ' +
    'handler refused it (old_text absent or not unique, a read-only path).',
  effect: 'Workspace.Write',
  op: 'edit',
  fields: {
    old_text: { type: 'string', description: 'Exact text to replace (must occur exactly once)' },
    new_text: { type: 'string', description: 'Replacement text' },
  },
  output: { ok: OK_PROPERTY, refused: REFUSED_PROPERTY },
  sourceUrl: import.meta.url,
});
