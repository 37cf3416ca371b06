/**
 * `ailang-cli` (world-spec §3.8): one allowlisted `ailang` operation as a typed policy-tool
 * request through the `Ailang.CLI` effect. The plan forwards the caller's arguments verbatim.
 */
import {
  closingSentences,
  defineTool,
  isJsonObject,
  OK_PROPERTY,
  optionalPathRefusal,
  optionalStringRefusal,
  REFUSED_PROPERTY,
  requiredStringRefusal,
  type JsonObject,
} from './common.js';

const EFFECT = 'Ailang.CLI';

/**
 * The 20 ops of the v0.52.1 tool binary's `cli` list (world-spec §3.8): policy-tool's ops minus
 * read/write/edit/summary, and never run. The handler re-checks against the live summary.
 * @internal exported for ailang-cli.spec.ts
 */
export const CLI_OPS = [
  'agent_prompt',
  'ai_check',
  'axioms',
  'builtins_list',
  'builtins_show',
  'check',
  'devtools_prompt',
  'docs_search',
  'examples_list',
  'examples_search',
  'examples_show',
  'examples_tags',
  'fmt',
  'iface',
  'pkg_docs',
  'policy_check',
  'prompt',
  'test',
  'tree',
  'version',
] as const;

/** An op outside CLI_OPS is refused, pointing at the dedicated tools (world-spec §3.8). */
function cliOpRefusal(op: string): string | undefined {
  return (CLI_OPS as readonly string[]).includes(op)
    ? undefined
    : `op "${op}" is not an ailang-cli op; reads, writes and edits have their own tools, and run is ailang-run`;
}

/**
 * `flags`, when present: a JSON object whose every value is a string (policy-tool's flags map;
 * boolean flags take ""). Which flags an op admits is the handler's check (world-spec §3.8).
 */
function flagsRefusal(args: JsonObject): string | undefined {
  if (!Object.hasOwn(args, 'flags')) return undefined;
  const flags = args.flags;
  return isJsonObject(flags) && Object.values(flags).every((v) => typeof v === 'string')
    ? undefined
    : 'argument "flags" must be an object of string values';
}

/**
 * `fmt` with a `write` flag would rewrite the worktree past the deny list (world-internals §12
 * incident 20): refused whatever the flag's value (world-spec §3.8, published).
 */
function fmtWriteRefusal(args: JsonObject): string | undefined {
  return args.op === 'fmt' && isJsonObject(args.flags) && Object.hasOwn(args.flags, 'write')
    ? 'op "fmt" flag "write" writes the worktree; ailang-cli never writes (fmt without it returns the formatted text; write it with ailang-write)'
    : undefined;
}

/** A copy of a JSON value that keeps every own key, `__proto__` included, in order. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, field] of Object.entries(value)) {
    Object.defineProperty(copy, key, {
      value: copyJson(field),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * The ailang-cli descriptor and transition (world-spec §3.0 table, §3.8 [code]): one
 * `Ailang.CLI` whose payload is the caller's arguments object verbatim, no finish. Refusals in
 * the documented order: steps 4-5 of §3.0 → `op` required/string → op allowlist → `path`
 * (string, path rule) → `module` string → `query` string → `package` (string, path rule) →
 * `flags` an object of strings → `fmt` with a `write` flag.
 */
export const ailangCli = defineTool({
  id: 'ailang-cli',
  title: 'AILANG CLI (policy-allowlisted)',
  description:
    'Run one allowlisted ailang operation as a typed policy-tool request, from the worktree root. ' +
    `ops: ${CLI_OPS.join(', ')}. ` +
    'Fields by op: check, ai_check, fmt, tree, policy_check take path; iface and pkg_docs take ' +
    'module; docs_search and examples_search take query; builtins_show and examples_show take the ' +
    'name in module; test takes path and/or package. flags is an object of string values, ' +
    'e.g. {"json":""} or {"limit":"5"} (a boolean flag takes ""); the handler refuses flags the op ' +
    'does not admit. read, write, edit and run are not ops here: they have their own tools, and ' +
    'ailang-cli never writes (fmt with a write flag is refused). path and package follow the ' +
    'worktree path rule: relative, non-empty, no ".." segment, no leading "-". Returns {ok, argv, ' +
    'exit_code, stdout, stderr}, or {ok:false, refused}. ' +
    closingSentences(EFFECT),
  effect: EFFECT,
  arguments: {
    op: { type: 'string', enum: [...CLI_OPS], description: 'The ailang operation' },
    path: {
      type: 'string',
      description: 'File or directory path, relative to the worktree root',
    },
    module: {
      type: 'string',
      description: 'Module name (iface, pkg_docs) or builtin/example name (*_show)',
    },
    query: { type: 'string', description: 'Search text (docs_search, examples_search)' },
    package: {
      type: 'string',
      description: 'Package directory for test, relative to the worktree root',
    },
    flags: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Flags by name without dashes, each a string value ("" for a boolean flag)',
    },
  },
  required: ['op'],
  output: {
    argv: {
      type: 'array',
      items: { type: 'string' },
      description: 'The ailang command line that ran',
    },
    exit_code: { type: 'integer' },
    stdout: { type: 'string' },
    stderr: { type: 'string' },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  },
  refusal: (a) =>
    requiredStringRefusal(a, 'op') ??
    cliOpRefusal(a.op as string) ??
    optionalPathRefusal(a, 'path') ??
    optionalStringRefusal(a, 'module') ??
    optionalStringRefusal(a, 'query') ??
    optionalPathRefusal(a, 'package') ??
    flagsRefusal(a) ??
    fmtWriteRefusal(a),
  payload: (a) => copyJson(a) as JsonObject,
  sourceUrl: import.meta.url,
});
