/**
 * `ailang-read` (world-spec §3.1): read one file of the episode worktree through the
 * `Workspace.Read` effect (policy-tool op `read`).
 */
import { defineFileTool, OK_PROPERTY, REFUSED_PROPERTY } from './common.js';

/**
 * The ailang-read descriptor and transition (world-spec §3.0 table, §3.1, §7.7): one
 * `Workspace.Read` with payload `{"op":"read","path"}`, no finish. Refusals, in order: steps 4-5
 * of §3.0, `path` missing / not a string, the path rule.
 */
export const ailangRead = defineFileTool({
  id: 'ailang-read',
  title: 'Read (sandboxed)',
  does: "Read one file inside this episode's worktree and return its text.",
  returns:
    'Returns {ok:true, content} when the file was read, or {ok:false, refused} when the plan or ' +
    "AILANG's policy layer refused it (for example a path escaping the sandbox or a missing file).",
  effect: 'Workspace.Read',
  op: 'read',
  fields: {},
  output: {
    content: { type: 'string', description: 'The file text' },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  },
  sourceUrl: import.meta.url,
});
