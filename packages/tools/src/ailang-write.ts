/**
 * `ailang-write` (world-spec §3.2): create or overwrite one file of the episode worktree through
 * the `Workspace.Write` effect (policy-tool op `write`).
 */
import { defineFileTool, OK_PROPERTY, REFUSED_PROPERTY } from './common.js';

/**
 * The ailang-write descriptor and transition (world-spec §3.0 table, §3.2): one
 * `Workspace.Write` with payload `{"op":"write","path","content"}`, no finish (the content is
 * recorded in full in the request object). Refusals, in order: steps 4-5 of §3.0, `path` then
 * `content` missing / not a string, the path rule.
 */
export const ailangWrite = defineFileTool({
  id: 'ailang-write',
  title: 'Write (sandboxed)',
  does: "Create or overwrite one file inside this episode's worktree with the complete content given.",
  returns:
    'Returns {ok:true} when the file was written, or {ok:false, refused} when the plan or ' +
    "AILANG's policy layer refused it (for example .git/ or a path on the deny list).",
  effect: 'Workspace.Write',
  op: 'write',
  fields: { content: { type: 'string', description: 'The complete new file content' } },
  output: { ok: OK_PROPERTY, refused: REFUSED_PROPERTY },
  sourceUrl: import.meta.url,
});
