/**
 * `ailang-read` (world-spec §3.1): read one file of the episode worktree through the
 * `Workspace.Read` effect (policy-tool op `read`).
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

const EFFECT = 'Workspace.Read';

/**
 * The ailang-read descriptor and transition (world-spec §3.0 table, §3.1, §7.7): one
 * `Workspace.Read` with payload `{"op":"read","path"}`, no finish. Refusals, in order: steps 4-5
 * of §3.0, `path` missing / not a string, the path rule.
 */
export const ailangRead = defineTool({
  id: 'ailang-read',
  title: 'Read (sandboxed)',
  description:
    "Read one file inside this episode's worktree and return its text. " +
    PATH_RULE_SENTENCE +
    ' Returns {ok:true, content} when the file was read, or {ok:false, refused} when the plan or ' +
    "AILANG's policy layer refused it (for example a path escaping the sandbox or a missing file). " +
    closingSentences(EFFECT),
  effect: EFFECT,
  arguments: { path: { type: 'string', description: 'File path, relative to the worktree root' } },
  required: ['path'],
  output: {
    content: { type: 'string', description: 'The file text' },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  },
  refusal: (a) => requiredStringRefusal(a, 'path') ?? pathRefusal(a.path as string),
  payload: (a) => ({ op: 'read', path: a.path as string }),
  sourceUrl: import.meta.url,
});
