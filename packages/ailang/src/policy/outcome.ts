import { RunEnvelopeError } from '../errors.js';

/**
 * classifyRunOutcome: the parser of `ailang run --policy` results into the four documented
 * outcome shapes (world-internals §8.2 "Parsing run into the four outcome shapes";
 * results-and-errors.txt "ailang-run outcomes"). Anything else is a RunEnvelopeError — never
 * guessed. The exit code is reported, not judged: rc 0 never means success by itself.
 */

/** A classified run. */
export interface RunOutcome {
  admitted: boolean;
  exit_code: number;
  decision: Record<string, unknown>;
  limit: Record<string, unknown> | null;
  stdout: string;
  stderr: string;
}

const POLICY_PREFIX = 'policy: ';
const RESULT_PREFIX = 'policy-result: ';
// Supervisor limits exit 3 (ailang.md §1.5).
const LIMIT_EXIT = 3;

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Classifies a run's raw output:
 * - (a)/(b) admitted: exactly one `policy:` line whose JSON has ok:true and decision.ok:true,
 *   no `policy-result:` line, any exit code;
 * - (c) refused before execution: no policy lines, empty stderr, exit ≠ 0, stdout a JSON object
 *   whose `decision.ok` is false;
 * - (d) supervisor limit: one admitted `policy:` line plus exactly one `policy-result:` line
 *   with non-empty string `reason` and `stage`, and exit code 3.
 * @throws RunEnvelopeError for anything else
 */
export function classifyRunOutcome(raw: {
  exitCode: number;
  stdout: string;
  stderr: string;
}): RunOutcome {
  const fail = (why: string): never => {
    throw new RunEnvelopeError(`ailang run returned an unrecognised outcome: ${why}`, raw);
  };
  const lines = raw.stderr.split('\n');
  const policyLines = lines.filter((l) => l.startsWith(POLICY_PREFIX));
  const resultLines = lines.filter((l) => l.startsWith(RESULT_PREFIX));

  if (policyLines.length === 0 && resultLines.length === 0) {
    if (raw.stderr !== '') return fail('no policy line, and stderr is not empty');
    if (raw.exitCode === 0) return fail('no policy line, and exit code 0');
    const out = parseObject(raw.stdout.trim());
    if (out === null) return fail('no policy line, and stdout is not a JSON object');
    const decision = out.decision;
    if (!isObject(decision) || decision.ok !== false)
      return fail('no policy line, and stdout carries no refused decision');
    return {
      admitted: false,
      exit_code: raw.exitCode,
      decision,
      limit: null,
      stdout: raw.stdout,
      stderr: raw.stderr,
    };
  }

  if (policyLines.length !== 1) return fail(`${policyLines.length} policy lines`);
  const admission = parseObject(policyLines[0]!.slice(POLICY_PREFIX.length));
  if (admission === null) return fail('the policy line is not a JSON object');
  const decision = admission.decision;
  if (admission.ok !== true || !isObject(decision) || decision.ok !== true) {
    return fail('the policy line does not record an admitted decision');
  }
  if (resultLines.length === 0) {
    return {
      admitted: true,
      exit_code: raw.exitCode,
      decision,
      limit: null,
      stdout: raw.stdout,
      stderr: raw.stderr,
    };
  }
  if (resultLines.length !== 1) return fail(`${resultLines.length} policy-result lines`);
  const limit = parseObject(resultLines[0]!.slice(RESULT_PREFIX.length));
  if (limit === null) return fail('the policy-result line is not a JSON object');
  const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v !== '';
  if (!nonEmpty(limit.reason) || !nonEmpty(limit.stage))
    return fail('the policy-result line lacks reason or stage');
  if (raw.exitCode !== LIMIT_EXIT)
    return fail(`a policy-result line with exit code ${raw.exitCode}, not ${LIMIT_EXIT}`);
  return {
    admitted: true,
    exit_code: raw.exitCode,
    decision,
    limit,
    stdout: raw.stdout,
    stderr: raw.stderr,
  };
}
