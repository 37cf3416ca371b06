import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { canonicalBytes, refOf } from '@world/canonical';
import {
  AILANG_EXAMPLES_MAX_HITS,
  AILANG_MAX_RECURSION_DEPTH,
  AILANG_NET_MAX_RESPONSE_BYTES,
  AILANG_NET_REQUEST_TIMEOUT_MS,
  AILANG_WORKER_HEAP_MB,
  POLICY_TOOL_STDOUT_MAX_BYTES,
} from '@world/contracts';
import { verifyUnavailable, type CommandOutput } from '../cli/check-output.js';
import { cliArgv, type CliRequest } from '../cli/ops.js';
import { runOp, type OpJob } from '../cli/run-op.js';
import { ToolProcessError } from '../errors.js';
import { classifyRunOutcome } from '../policy/outcome.js';
import { goDuration, superviseOp, superviseRun } from '../policy/supervisor.js';
import {
  assertSandboxIsWorktree,
  childEnv,
  resolveRunPolicy,
  type PreparedRun,
} from './context.js';
import { OpToolchain } from './op-toolchain.js';
import { runResult } from './run-result.js';
import type { AilangContext, Toolchain } from './types.js';

/**
 * The embedded toolchain: World's TypeScript subset of AILANG behind the Toolchain interface
 * (DESIGN.md §7.8). Ops that read user programs run in worker threads bounded by the context's
 * deadline; runs go through the supervisor and the same classifyRunOutcome as the binary.
 */

/**
 * The embedded subset's version line: parses as `AILANG v0.51.0-lite`, never as a release.
 * @internal exported for test/integration/embedded-toolchain.int-spec.ts (through the index)
 */
export const EMBEDDED_VERSION =
  'AILANG v0.51.0-lite (ts-subset: World embedded toolchain, not the ailang binary)';

const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** `ailang version` of the embedded toolchain. */
const EMBEDDED_VERSION_TEXT = `${EMBEDDED_VERSION}\nToolchain: @world/ailang ${PACKAGE_VERSION} (TypeScript subset of the AILANG language core)\n\nThe AI-First Programming Language\n`;

// Ops whose work is a table lookup run on the caller's thread.
const IN_THREAD_OPS = new Set(['version', 'builtins_list', 'builtins_show']);
// `ailang check` exits 124 on a compile deadline (ailang.md §1.3).
const CHECK_TIMEOUT_EXIT = 124;
// A check that did not pass exits 1 (ailang.md §1.3).
const CHECK_FAILED_EXIT = 1;

/** Truncates to the policy-tool stdout cap (world-spec §10: 64 KiB), on a character boundary. */
function cap(text: string): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= POLICY_TOOL_STDOUT_MAX_BYTES) return text;
  return buf
    .subarray(0, POLICY_TOOL_STDOUT_MAX_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

/**
 * The check report of a check the toolchain stopped at one of its limits, in the shape of
 * `ailang check --json` / `ai-check` (ailang.md §1.3): one error naming the limit and its value.
 * @param exitCode 124 for the compile deadline (ailang.md §1.3), 1 for any other limit
 */
function limitOutput(
  req: CliRequest,
  exitCode: number,
  error: { code: string; message: string },
): CommandOutput {
  const err = { code: error.code, message: error.message, file: req.path };
  if (req.op === 'ai_check') {
    const out = {
      file: req.path,
      check: { passed: false, error_count: 1, errors: [err] },
      verify: verifyUnavailable(),
    };
    return { exitCode, stdout: `${JSON.stringify(out, null, 2)}\n`, stderr: '' };
  }
  if ('json' in req.flags) {
    const out = { file: req.path, passed: false, error_count: 1, errors: [err] };
    return { exitCode, stdout: `${JSON.stringify(out, null, 2)}\n`, stderr: '' };
  }
  return { exitCode, stdout: '', stderr: `Error: ${error.message}\n` };
}

/** The LIMIT002 error of a check whose worker exhausted its heap (AILANG_WORKER_HEAP_MB). */
const HEAP_LIMIT_ERROR = {
  code: 'LIMIT002',
  message: `compilation exhausted the embedded toolchain's worker heap (${AILANG_WORKER_HEAP_MB} MiB)`,
};

class EmbeddedToolchain extends OpToolchain implements Toolchain {
  readonly kind = 'embedded' as const;

  async version(): Promise<string> {
    return EMBEDDED_VERSION;
  }

  async toolRef(): Promise<string> {
    return refOf(
      canonicalBytes({
        toolchain: 'embedded',
        package: '@world/ailang',
        version: PACKAGE_VERSION,
        language: EMBEDDED_VERSION,
      }),
    );
  }

  protected async ready(): Promise<undefined> {
    return undefined;
  }

  protected async op(ctx: AilangContext, req: CliRequest): Promise<Record<string, unknown>> {
    assertSandboxIsWorktree(ctx);
    const base = resolveRunPolicy(ctx, ['FS', 'IO']);
    const job: OpJob = {
      worktree: ctx.worktree,
      policy: base.effective,
      examplesDir: ctx.examplesDir ?? null,
      request: req,
      version: EMBEDDED_VERSION_TEXT,
      examplesMaxHits: AILANG_EXAMPLES_MAX_HITS,
    };
    const res = IN_THREAD_OPS.has(req.op) ? runOp(job) : await superviseOp(job, ctx.deadlineMs);
    let output: CommandOutput;
    const isCheck = req.op === 'check' || req.op === 'ai_check';
    if (res === 'timeout') {
      if (!isCheck) {
        throw new ToolProcessError(
          `op ${req.op} exceeded the handler deadline (${goDuration(ctx.deadlineMs)}); worker thread terminated`,
        );
      }
      output = limitOutput(req, CHECK_TIMEOUT_EXIT, {
        code: 'TIMEOUT',
        message: `compilation timed out after ${goDuration(ctx.deadlineMs)}`,
      });
    } else if ('failed' in res && res.heapExhausted === true && isCheck) {
      output = limitOutput(req, CHECK_FAILED_EXIT, HEAP_LIMIT_ERROR);
    } else if ('failed' in res) {
      throw new ToolProcessError(`op ${req.op} failed in the embedded toolchain: ${res.failed}`);
    } else if ('refused' in res) {
      return { ok: false, refused: res.refused };
    } else {
      output = res.output;
    }
    return {
      ok: true,
      argv: cliArgv(req, ctx.policyPath),
      exit_code: output.exitCode,
      stdout: cap(output.stdout),
      stderr: cap(output.stderr),
    };
  }

  protected async runPrepared(
    ctx: AilangContext,
    prepared: PreparedRun,
  ): Promise<Record<string, unknown>> {
    const { run: p, resolved } = prepared;
    const policy = resolved.effective;
    const raw = await superviseRun(
      {
        worktree: ctx.worktree,
        file: p.path,
        policy,
        stdin: p.stdin,
        argv: p.argv,
        argsJson: p.argsJson,
        env: childEnv(ctx),
        maxRecursionDepth: AILANG_MAX_RECURSION_DEPTH,
        net: {
          timeoutMs: AILANG_NET_REQUEST_TIMEOUT_MS,
          maxResponseBytes: AILANG_NET_MAX_RESPONSE_BYTES,
        },
      },
      ctx.deadlineMs,
    );
    const outcome = classifyRunOutcome(raw);
    return runResult(outcome, policy, ctx.worktree);
  }
}

/** The embedded toolchain (stateless; one instance may serve every episode). */
export function embeddedToolchain(): Toolchain {
  return new EmbeddedToolchain();
}
