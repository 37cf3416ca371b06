import { foldCase } from '../confine/glob.js';
import { pathRefusal } from '../toolchain/confine.js';

/**
 * The `ailang-cli` operations (world-spec §3.8: the 20 admitted ops of the v0.52.1 tool binary
 * with their fields and admitted flags) and the handler-side validation both toolchains apply
 * before running anything (world-internals §8.2 "Refused before exec").
 */

/** A request field of an op. */
type CliField = 'path' | 'module' | 'query' | 'package';

/** One op: its fields (required or optional) and admitted flags. */
export interface CliOp {
  required: CliField[];
  optional: CliField[];
  flags: string[];
}

const op = (required: CliField[], flags: string[] = [], optional: CliField[] = []): CliOp => ({
  required,
  optional,
  flags,
});

/** The admitted ops (world-spec §3.8 table). */
export const CLI_OPS: Readonly<Record<string, CliOp>> = {
  agent_prompt: op([]),
  ai_check: op(['path'], ['timeout']),
  axioms: op([]),
  builtins_list: op([], ['by-effect', 'by-module', 'json', 'module', 'query', 'verbose']),
  builtins_show: op(['module']),
  check: op(['path'], ['json', 'quiet', 'strict-syntax']),
  devtools_prompt: op([]),
  docs_search: op(['query'], ['json', 'limit']),
  examples_list: op([], ['status', 'tags']),
  examples_search: op(['query']),
  examples_show: op(['module']),
  examples_tags: op([]),
  fmt: op(['path'], ['check']),
  iface: op(['module'], ['compact']),
  pkg_docs: op(['module']),
  policy_check: op(['path']),
  prompt: op([]),
  test: op([], ['allow-skips', 'json', 'no-color', 'package'], ['path', 'package']),
  tree: op(['path']),
  version: op([]),
};

const KNOWN_KEYS = ['op', 'path', 'module', 'query', 'package', 'flags'] as const;

/** A validated CLI request: exactly the checked keys, re-encoded. */
export interface CliRequest {
  op: string;
  path?: string;
  module?: string;
  query?: string;
  package?: string;
  flags: Record<string, string>;
}

/**
 * The plan's wording for a formatter asked to write (world-spec §3.8).
 * @internal exported for ops.spec.ts
 */
export const FMT_WRITE_REFUSAL =
  'op "fmt" flag "write" writes the worktree; ailang-cli never writes (fmt without it returns the formatted text; write it with ailang-write)';

/**
 * Validates an ailang-cli payload: case-folded aliases of known keys are refused, `op` must be
 * one of `allowedOps`, `fmt` with any `write` flag key is refused, flags must be an object of
 * strings naming admitted flags, required fields present, paths confined to the worktree.
 * @returns the request, or the refusal text
 */
export function validateCliRequest(
  payload: Record<string, unknown>,
  worktree: string,
  allowedOps: readonly string[] = Object.keys(CLI_OPS),
): CliRequest | { refused: string } {
  for (const key of Object.keys(payload)) {
    const canon = KNOWN_KEYS.find((k) => k === foldCase(key));
    if (canon !== undefined && canon !== key) {
      return {
        refused: `key "${key}" is a case-folded alias of "${canon}"; send "${canon}" exactly`,
      };
    }
  }
  const name = payload.op;
  if (name === undefined) return { refused: 'missing required argument "op"' };
  if (typeof name !== 'string') return { refused: 'argument "op" must be a string' };
  const spec = CLI_OPS[name];
  if (spec === undefined || !allowedOps.includes(name)) {
    return {
      refused: `op "${name}" is not an ailang-cli op; admitted: ${[...allowedOps].sort().join(', ')}`,
    };
  }
  const flagsIn = payload.flags ?? {};
  if (typeof flagsIn !== 'object' || flagsIn === null || Array.isArray(flagsIn)) {
    return { refused: 'argument "flags" must be an object of string values' };
  }
  const flags: Record<string, string> = {};
  for (const [k, v] of Object.entries(flagsIn)) {
    if (name === 'fmt' && foldCase(k).replace(/^-+/, '') === 'write')
      return { refused: FMT_WRITE_REFUSAL };
    if (typeof v !== 'string')
      return { refused: 'argument "flags" must be an object of string values' };
    flags[k] = v;
  }
  for (const k of Object.keys(flags)) {
    if (!spec.flags.includes(k)) {
      const admitted = spec.flags.length > 0 ? spec.flags.map((f) => `--${f}`).join(' ') : 'none';
      return { refused: `op ${name} does not admit flag --${k} (admitted: ${admitted})` };
    }
  }
  const req: CliRequest = { op: name, flags };
  for (const field of ['path', 'module', 'query', 'package'] as const) {
    const v = payload[field];
    if (v === undefined) continue;
    if (typeof v !== 'string') return { refused: `argument "${field}" must be a string` };
    if (!spec.required.includes(field) && !spec.optional.includes(field)) continue;
    if (field === 'path' || field === 'package') {
      const refusal = pathRefusal(name, v, worktree);
      if (refusal !== null) return { refused: refusal };
    }
    req[field] = v;
  }
  for (const field of spec.required) {
    if (req[field] === undefined) return { refused: `op ${name} needs "${field}"` };
  }
  return req;
}

/** The words of the equivalent `ailang` command line, for the `argv` of a result. */
export function cliArgv(req: CliRequest, policyPath: string): string[] {
  const words: Record<string, string[]> = {
    ai_check: ['ai-check'],
    builtins_list: ['builtins', 'list'],
    builtins_show: ['builtins', 'show'],
    docs_search: ['docs', 'search'],
    examples_list: ['examples', 'list'],
    examples_search: ['examples', 'search'],
    examples_show: ['examples', 'show'],
    examples_tags: ['examples', 'tags'],
    policy_check: ['policy-check', '--policy', policyPath],
    agent_prompt: ['prompt', '--agent'],
    devtools_prompt: ['devtools-prompt'],
    pkg_docs: ['docs'],
  };
  const argv = [...(words[req.op] ?? [req.op])];
  for (const k of Object.keys(req.flags).sort())
    argv.push(req.flags[k] === '' ? `--${k}` : `--${k}=${req.flags[k]}`);
  for (const field of ['module', 'query', 'package', 'path'] as const) {
    const v = req[field];
    if (v !== undefined) {
      if (field === 'path' || field === 'package') argv.push('--');
      argv.push(v);
    }
  }
  return argv;
}
