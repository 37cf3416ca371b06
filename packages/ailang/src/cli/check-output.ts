import type { CheckResult } from '../lang/program.js';

/**
 * Renderings of a check result as the binary prints them (ailang.md §1.3 `check` human and
 * JSON modes, §1.4 `ai-check`).
 */

/** Output of one CLI command. */
export interface CommandOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

// Go's json.MarshalIndent(v, "", "  ").
const INDENT = 2;

function checkBlock(r: CheckResult): { passed: boolean; error_count: number; errors: unknown[] } {
  return {
    passed: r.diagnostics.length === 0,
    error_count: r.diagnostics.length,
    errors: r.diagnostics,
  };
}

/** `ailang check --json`: `{file, passed, error_count, errors}`; exit 0 passed, 1 failed. */
export function checkJson(r: CheckResult): CommandOutput {
  const block = checkBlock(r);
  return {
    exitCode: block.passed ? 0 : 1,
    stdout: `${JSON.stringify({ file: r.file, ...block }, null, INDENT)}\n`,
    stderr: warningText(r),
  };
}

/**
 * The `verify` block of `ai-check` where verification is unavailable (no Z3), exactly as the real
 * binary reports it (ailang.md §1.4).
 */
export function verifyUnavailable(): Record<string, unknown> {
  return { available: false, verified: 0, counterexample: 0, skipped: 0, errors: 0, results: [] };
}

/**
 * `ailang ai-check`: `{file, check, verify}`; verification is unavailable (no Z3), reported
 * exactly as the real binary does without Z3 (ailang.md §1.4). Exit 1 when the check failed.
 */
export function aiCheckJson(r: CheckResult): CommandOutput {
  const block = checkBlock(r);
  const out = {
    file: r.file,
    check: block,
    verify: verifyUnavailable(),
  };
  return {
    exitCode: block.passed ? 0 : 1,
    stdout: `${JSON.stringify(out, null, INDENT)}\n`,
    stderr: warningText(r),
  };
}

/**
 * `ailang check` human mode: progress lines on stdout (unless quiet), `✓ No errors found!` on
 * success, one `Error: <message>` per error on stderr with exit 1.
 */
export function checkHuman(r: CheckResult, quiet: boolean): CommandOutput {
  let stdout = '';
  if (!quiet) {
    stdout += `→ Type checking ${r.file}...\n`;
    if (r.phase === 'effect' || r.phase === 'ok') stdout += '→ Effect checking...\n';
  }
  if (r.diagnostics.length === 0) {
    return { exitCode: 0, stdout: `${stdout}\n✓ No errors found!\n`, stderr: warningText(r) };
  }
  return {
    exitCode: 1,
    stdout,
    stderr: warningText(r) + r.diagnostics.map((d) => `Error: ${d.message}\n`).join(''),
  };
}

/** The loader's warnings, one line each, as the real binary prints them on stderr. */
function warningText(r: CheckResult): string {
  return r.warnings.map((w) => `${w}\n`).join('');
}
