/**
 * `ailang-write` (world-spec §3.2): create or overwrite one file of the episode worktree through
 * the `Workspace.Write` effect (policy-tool op `write`).
 */
import {
  closingSentences,
  defineTool,
  OK_PROPERTY,
  PATH_RULE_SENTENCE,
  pathRefusal,
  REFUSED_PROPERTY,
  requiredStringRefusal,
} from './common.js';

const EFFECT = 'Workspace.Write';

/**
 * The ailang-write descriptor and transition (world-spec §3.0 table, §3.2): one
 * `Workspace.Write` with payload `{"op":"write","path","content"}`, no finish (the content is
 * recorded in full in the request object). Refusals, in order: steps 4-5 of §3.0, `path` then
 * `content` missing / not a string, the path rule.
 */
export const ailangWrite = defineTool({
  id: 'ailang-write',
  title: 'Write (sandboxed)',
  description:
    "Create or overwrite one file inside this episode's worktree with the complete content given. " +
    PATH_RULE_SENTENCE +
    ' Returns {ok:true} when the file was written, or {ok:false, refused} when the plan or ' +
    "AILANG's policy layer refused it (for example .git/ or a path on the deny list). " +
    closingSentences(EFFECT),
  effect: EFFECT,
  arguments: {
    path: { type: 'string', description: 'File path, relative to the worktree root' },
    content: { type: 'string', description: 'The complete new file content' },
  },
  required: ['path', 'content'],
  output: { ok: OK_PROPERTY, refused: REFUSED_PROPERTY },
  refusal: (a) =>
    requiredStringRefusal(a, 'path') ??
    requiredStringRefusal(a, 'content') ??
    pathRefusal(a.path as string),
  payload: (a) => ({ op: 'write', path: a.path as string, content: a.content as string }),
  sourceUrl: import.meta.url,
});
