/**
 * `ailang-run` (world-spec §3.5): run one AILANG program of the episode worktree under the
 * operator's policy through `Ailang.Run`, or `Ailang.RunEnv` / `Ailang.RunNet` when the call asks
 * for the Env or Net capability.
 */
import { RUN_ARGV_ITEM_MAX_BYTES, RUN_ARGV_MAX_ITEMS, RUN_STDIN_MAX_BYTES } from '@world/contracts';
import {
  closingSentences,
  defineTool,
  OK_PROPERTY,
  optionalStringRefusal,
  PATH_RULE_SENTENCE,
  pathRefusal,
  REFUSED_PROPERTY,
  requiredStringRefusal,
  utf8ByteLength,
  type JsonObject,
} from './common.js';

/** The default effect, and the ones a run with Env or Net needs instead (world-spec §3.5). */
const RUN_EFFECT = 'Ailang.Run';
const RUN_ENV_EFFECT = 'Ailang.RunEnv';
const RUN_NET_EFFECT = 'Ailang.RunNet';
/** The capability names `caps` admits, case-sensitive, in the refusal's order (world-spec §3.5). */
const RUN_CAPABILITIES = ['Clock', 'Declassify', 'Env', 'FS', 'IO', 'Net'] as const;

/** `args_json`, when present, must be text that parses as JSON (world-spec §3.5). */
function argsJsonRefusal(args: JsonObject): string | undefined {
  if (!Object.hasOwn(args, 'args_json')) return undefined;
  try {
    JSON.parse(args.args_json as string);
    return undefined;
  } catch {
    return 'argument "args_json" must be a string holding JSON';
  }
}

/** `stdin`, when present: a string of at most RUN_STDIN_MAX_BYTES UTF-8 bytes (world-spec §3.5). */
function stdinRefusal(args: JsonObject): string | undefined {
  if (!Object.hasOwn(args, 'stdin')) return undefined;
  const stdin = args.stdin;
  if (typeof stdin !== 'string') return 'argument "stdin" must be a string';
  const bytes = utf8ByteLength(stdin);
  return bytes > RUN_STDIN_MAX_BYTES
    ? `argument "stdin" is ${bytes} bytes; the limit is ${RUN_STDIN_MAX_BYTES}`
    : undefined;
}

/**
 * `argv`, when present (world-spec §3.5 check order): an array; at most RUN_ARGV_MAX_ITEMS items;
 * then item by item: a string, at most RUN_ARGV_ITEM_MAX_BYTES UTF-8 bytes, no NUL.
 */
function argvRefusal(args: JsonObject): string | undefined {
  if (!Object.hasOwn(args, 'argv')) return undefined;
  const argv = args.argv;
  if (!Array.isArray(argv)) return 'argument "argv" must be an array of strings';
  if (argv.length > RUN_ARGV_MAX_ITEMS) {
    return `argument "argv" has ${argv.length} items; the limit is ${RUN_ARGV_MAX_ITEMS}`;
  }
  for (const item of argv) {
    if (typeof item !== 'string') return 'argument "argv" must be an array of strings';
    const bytes = utf8ByteLength(item);
    if (bytes > RUN_ARGV_ITEM_MAX_BYTES)
      return `an argv item is ${bytes} bytes; the limit is ${RUN_ARGV_ITEM_MAX_BYTES}`;
    if (item.includes('\u0000')) return 'an argv item contains a NUL byte';
  }
  return undefined;
}

/**
 * `caps`, when present (world-spec §3.5 check order): an array; then cap by cap: a string, a known
 * capability (case-sensitive), not listed before; then non-empty; then never Env with Net.
 */
function capsRefusal(args: JsonObject): string | undefined {
  if (!Object.hasOwn(args, 'caps')) return undefined;
  const caps = args.caps;
  if (!Array.isArray(caps)) return 'argument "caps" must be an array of capability names';
  const seen = new Set<string>();
  for (const cap of caps) {
    if (typeof cap !== 'string') return 'argument "caps" must be an array of capability names';
    if (!(RUN_CAPABILITIES as readonly string[]).includes(cap)) {
      return `unknown capability "${cap}"; caps admits only: ${RUN_CAPABILITIES.join(', ')}`;
    }
    if (seen.has(cap)) return `capability "${cap}" is listed twice`;
    seen.add(cap);
  }
  if (seen.size === 0) return 'argument "caps" names no capability';
  if (seen.has('Env') && seen.has('Net'))
    return 'caps names both Env and Net; one run takes at most one of them';
  return undefined;
}

/**
 * The effect a run needs (world-spec §3.5): `Ailang.RunEnv` with Env, `Ailang.RunNet` with Net,
 * otherwise `Ailang.Run` (a Declassify run included). Caps never hold both (capsRefusal).
 * @param caps the admitted capability names, or undefined when the call gave none
 * @internal exported for ailang-run.spec.ts
 */
export function runEffectOf(caps: readonly string[] | undefined): string {
  if (caps?.includes('Env')) return RUN_ENV_EFFECT;
  if (caps?.includes('Net')) return RUN_NET_EFFECT;
  return RUN_EFFECT;
}

/**
 * The run's payload (world-spec §3.5 [code]): `{path}` plus, only when present and in this key
 * order, `args_json`, `stdin`, `argv`, `caps` (sorted ascending); no `op`.
 * @param a arguments that passed every refusal
 */
function runPayload(a: JsonObject): JsonObject {
  const payload: JsonObject = { path: a.path as string };
  if (Object.hasOwn(a, 'args_json')) payload.args_json = a.args_json as string;
  if (Object.hasOwn(a, 'stdin')) payload.stdin = a.stdin as string;
  if (Object.hasOwn(a, 'argv')) payload.argv = [...(a.argv as string[])];
  if (Object.hasOwn(a, 'caps')) payload.caps = [...(a.caps as string[])].sort();
  return payload;
}

/**
 * The ailang-run descriptor and transition (world-spec §3.0 table, §3.5 [code]): one run with
 * runPayload's payload and the effect runEffectOf names, no finish. Refusals in the documented
 * order: steps 4-5 of §3.0 → `path` required/string → `args_json` optional string → path rule →
 * `args_json` holds JSON → stdin → argv → caps.
 */
export const ailangRun = defineTool({
  id: 'ailang-run',
  title: 'AILANG Run (policy-gated)',
  description:
    "Run one AILANG program inside this episode's worktree under the operator's policy " +
    '(`ailang run --policy <policy> [--args-json J] -- <path> [-- <argv…>]`, from the worktree ' +
    "root, stdin piped in). The program's declared effects must fit the allowed capabilities: IO " +
    'and FS by default, or exactly the set named in caps (Env needs an Ailang.RunEnv grant, Net an ' +
    'Ailang.RunNet grant, never both in one run; Clock, for std/clock now and sleep, needs only the ' +
    'operator gate and stays within the time limit). stdin is at most ' +
    `${RUN_STDIN_MAX_BYTES} UTF-8 bytes; argv at most ${RUN_ARGV_MAX_ITEMS} items of at most ` +
    `${RUN_ARGV_ITEM_MAX_BYTES} bytes each, without NUL. ` +
    'Returns {admitted, exit_code, decision, limit, stdout, stderr, policy}: a program refused ' +
    'before execution has admitted:false and its reason in decision (read ' +
    'decision.missing_from_policy); a supervisor limit such as the timeout sets limit. A refused ' +
    "inner effect can still exit 0, so read stdout and stderr, not only exit_code. The program's " +
    'own file operations are bounded by the AILANG policy, not brokered one by one. ' +
    PATH_RULE_SENTENCE +
    ' ' +
    closingSentences('Ailang.Run (or Ailang.RunEnv / Ailang.RunNet)'),
  effect: RUN_EFFECT,
  alsoDeclared: [RUN_ENV_EFFECT, RUN_NET_EFFECT],
  arguments: {
    path: { type: 'string', description: 'Path to the .ail file, relative to the worktree root' },
    args_json: {
      type: 'string',
      description: 'JSON arguments for the entrypoint (passed as --args-json)',
    },
    stdin: {
      type: 'string',
      description: `The whole standard input, at most ${RUN_STDIN_MAX_BYTES} UTF-8 bytes; absent means empty`,
    },
    argv: {
      type: 'array',
      items: { type: 'string' },
      maxItems: RUN_ARGV_MAX_ITEMS,
      description:
        `Program arguments, always after an inner "--": at most ${RUN_ARGV_MAX_ITEMS} items of at most ` +
        `${RUN_ARGV_ITEM_MAX_BYTES} bytes, no NUL`,
    },
    caps: {
      type: 'array',
      items: { type: 'string', enum: [...RUN_CAPABILITIES] },
      minItems: 1,
      uniqueItems: true,
      description:
        'The exact capability set of the run (default IO, FS); never Env together with Net',
    },
  },
  required: ['path'],
  output: {
    admitted: {
      type: 'boolean',
      description: 'True when the policy admitted the program and it ran',
    },
    exit_code: { type: 'integer' },
    decision: {
      type: 'object',
      description: "The policy's decision (error_kind, missing_from_policy when refused)",
    },
    limit: {
      type: ['object', 'null'],
      description: 'The supervisor limit that stopped the run, or null',
    },
    stdout: { type: 'string' },
    stderr: { type: 'string' },
    stdout_truncated: {
      type: 'boolean',
      description:
        'Present when the output passed the 1 MiB invocation output cap: true when stdout holds only its head',
    },
    stderr_truncated: {
      type: 'boolean',
      description:
        'Present when the output passed the 1 MiB invocation output cap: true when stderr holds only its head',
    },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
    policy: {
      type: 'object',
      description: 'The policy variant that ran: digest, security_mode, caps, net_allow',
    },
  },
  refusal: (a) =>
    requiredStringRefusal(a, 'path') ??
    optionalStringRefusal(a, 'args_json') ??
    pathRefusal(a.path as string) ??
    argsJsonRefusal(a) ??
    stdinRefusal(a) ??
    argvRefusal(a) ??
    capsRefusal(a),
  payload: runPayload,
  effectOf: (payload) => runEffectOf(payload.caps as string[] | undefined),
  sourceUrl: import.meta.url,
});
