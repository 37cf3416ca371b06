/**
 * `ailang-check` (world-spec §3.4, world-internals §8.2): type-check and verify one AILANG file
 * through the `Ailang.Check` effect (policy-tool op `ai_check`); a pure finish phase reshapes the
 * checker's JSON report into structured diagnostics.
 */
import {
  closingSentences,
  defineTool,
  finishFailure,
  isJsonObject,
  OK_PROPERTY,
  PATH_RULE_SENTENCE,
  pathRefusal,
  REFUSED_PROPERTY,
  requiredStringRefusal,
  soleEffectOutput,
  stringField,
  type JsonObject,
} from './common.js';
import type { EffectResult } from './types.js';

const EFFECT = 'Ailang.Check';

/**
 * The check report inside `ailang ai-check` JSON stdout (ailang.md §1.4):
 * `{"check":{"passed":bool,"error_count":int,"errors":[…]}}` → `{ok:true, passed, error_count,
 * errors:[{code, message, file}]}`, keeping only those three keys per error (line and column stay
 * inside `message` as the checker wrote it; an absent field becomes ""). Null when stdout is not
 * JSON or lacks any of the three check fields with its type.
 * @internal exported for ailang-check.spec.ts
 */
export function checkReportOf(stdout: string): JsonObject | null {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    return null;
  }
  if (!isJsonObject(doc) || !isJsonObject(doc.check)) return null;
  const { passed, error_count: errorCount, errors } = doc.check;
  if (typeof passed !== 'boolean' || !Number.isInteger(errorCount) || !Array.isArray(errors))
    return null;
  return {
    ok: true,
    passed,
    error_count: errorCount,
    errors: errors.map((e: unknown) => ({
      code: stringField(e, 'code'),
      message: stringField(e, 'message'),
      file: stringField(e, 'file'),
    })),
  };
}

/**
 * The finish phase (world-spec §3.4 [code], world-internals §8.2): the one Ailang.Check result's
 * handler output `{ok, argv, exit_code, stdout, stderr}` (or `{ok:false, refused}`) becomes
 * `{ok:true, passed, error_count, errors}`; without a usable report `{ok:false, status:"ok",
 * refused}` with the handler's refusal, else `ai_check returned no check report; stderr: <stderr>`.
 * Guard failures (denied/failed effect, malformed results) are soleEffectOutput's.
 * @param _args the caller's arguments (unused: the report names its file)
 * @param results the effect results, exactly one expected
 * @internal exported for ailang-check.spec.ts
 */
export function finishCheck(_args: unknown, results: EffectResult[]): JsonObject {
  const sole = soleEffectOutput(EFFECT, results);
  if ('failure' in sole) return sole.failure;
  const report = checkReportOf(stringField(sole.output, 'stdout'));
  if (report !== null) return report;
  const refused = stringField(sole.output, 'refused');
  return finishFailure(
    'ok',
    refused !== ''
      ? refused
      : `ai_check returned no check report; stderr: ${stringField(sole.output, 'stderr')}`,
  );
}

/**
 * The ailang-check descriptor and transition (world-spec §3.0 table, §3.4 [code]): one
 * `Ailang.Check` with payload `{"op":"ai_check","path"}` and the finish phase finishCheck.
 * Refusals, in order: steps 4-5 of §3.0, `path` missing / not a string, the path rule.
 */
export const ailangCheck = defineTool({
  id: 'ailang-check',
  title: 'AILANG Check',
  description:
    "Type-check (and contract-verify) one AILANG .ail file inside this episode's worktree and " +
    'return structured diagnostics: {ok:true, passed, error_count, errors:[{code, message, file}]}, ' +
    'where ok:true means the check ran and passed is the verdict (line and column stay inside ' +
    'message). When no report could be produced the result is {ok:false, status, refused}: status ' +
    'is the effect status (denied or failed when the broker or handler stopped it). ' +
    PATH_RULE_SENTENCE +
    ' ' +
    closingSentences(EFFECT),
  effect: EFFECT,
  arguments: {
    path: { type: 'string', description: 'Path to the .ail file, relative to the worktree root' },
  },
  required: ['path'],
  output: {
    passed: { type: 'boolean', description: 'The verdict: true when the file checked clean' },
    error_count: { type: 'integer' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          file: { type: 'string' },
        },
      },
    },
    status: { type: 'string', description: "The effect's status when no report was produced" },
    ok: OK_PROPERTY,
    refused: REFUSED_PROPERTY,
  },
  refusal: (a) => requiredStringRefusal(a, 'path') ?? pathRefusal(a.path as string),
  payload: (a) => ({ op: 'ai_check', path: a.path as string }),
  finish: finishCheck,
  sourceUrl: import.meta.url,
});
