import { join } from 'node:path';
import { canonicalBytes, parseRef, type Ref } from '@world/canonical';
import { HANDLER_OUTPUT_MAX_BYTES } from '@world/contracts';
import { CLI_OPS, type AilangContext, type Toolchain } from '@world/ailang';
import { payloadString, type EffectHandler, type HandlerContext } from './registry.js';

/** The operator's settings of the AILANG tools (world-spec §3.5 operator gates, §3.7 corpus). */
export interface AilangOperatorSettings {
  /** the examples corpus examples-search reads (WORLD_EXAMPLES_DIR); none → the §3.7 refusal */
  examplesDir?: string;
  /** caps beyond IO and FS the operator enables for ailang-run (WORLD_RUN_ALLOW_CAPS) */
  runAllowCaps: string[];
  /** IP:PORT literals a Net run may reach (WORLD_RUN_NET_ALLOW) */
  netAllow: string[];
  /** plain http to them (WORLD_RUN_NET_ALLOW_HTTP; world-spec §7.2 `--run-net-allow-http`) */
  netAllowHttp: boolean;
  /** per-episode cache/HOME of binary subprocesses: <cacheRoot>/<episode> (world-spec §7.5) */
  cacheRoot: string;
}

/**
 * How long before the handler's own deadline (handlerMs, 10 s) the toolchain's deadline falls:
 * the toolchain stops its worker and answers in its documented shape (ailang-check's TIMEOUT
 * report, a run's supervisor limit) before the broker's timer gives up on the handler and
 * records a bare failed effect. Both timers armed at the same instant raced.
 * @internal exported for ailang.spec.ts
 */
export const TOOLCHAIN_DEADLINE_MARGIN_MS = 500;

/**
 * The deadline (ms from `now`) a toolchain call gets: what is left of the handler's deadline
 * less TOOLCHAIN_DEADLINE_MARGIN_MS, at least 1 ms.
 * @param deadline the handler's deadline (epoch ms)
 * @param now the current time (epoch ms)
 * @internal exported for ailang.spec.ts
 */
export function toolchainDeadlineMs(deadline: number, now: number): number {
  return Math.max(1, deadline - now - TOOLCHAIN_DEADLINE_MARGIN_MS);
}

/** The op name the broker checks for the run path, whose payload carries no `op` (world-spec §2.6). */
const RUN_OP = 'run';

/**
 * The handlers of the AILANG effects over one toolchain (the embedded subset, or a real binary
 * when AILANG_BIN names one; DESIGN.md §7.8): Ailang.Check {ai_check}, Ailang.Discover
 * {builtins_list, examples_search}, Ailang.CLI {the §3.8 ops}, and the run path for Ailang.Run,
 * Ailang.RunEnv and Ailang.RunNet (world-spec §2.6). Every output is stamped with the
 * toolchain's ref as `tool`; run outputs are not stamped (world-spec §3.5: they carry `policy`).
 * The toolchain's typed errors (RunEnvelopeError, OperatorGateError, ToolProcessError…) are
 * thrown on, so the broker records a failed effect.
 * @throws whatever toolRef() throws (a binary that cannot be hashed)
 */
export async function ailangHandlers(
  toolchain: Toolchain,
  settings: AilangOperatorSettings,
): Promise<Record<string, EffectHandler>> {
  const tool: Ref = parseRef(await toolchain.toolRef(), 'toolchain.toolRef');
  const context = (ctx: HandlerContext): AilangContext => ({
    worktree: ctx.worktree,
    policy: ctx.policy.policy,
    policyPath: ctx.policy.path,
    examplesDir: settings.examplesDir,
    runAllowCaps: settings.runAllowCaps,
    netAllow: settings.netAllow,
    netAllowHttp: settings.netAllowHttp,
    deadlineMs: toolchainDeadlineMs(ctx.deadline, Date.now()),
    cacheDir: join(settings.cacheRoot, ctx.episodeId),
  });
  const scopes = ['worktree'];
  const run: EffectHandler = {
    ops: [RUN_OP],
    opOf: () => RUN_OP,
    scopes,
    tool,
    stamp: false,
    run: async (payload, ctx) =>
      fitRunOutput(await toolchain.run(context(ctx), payload), RUN_OUTPUT_BUDGET_BYTES),
  };
  return {
    'Ailang.Check': {
      ops: ['ai_check'],
      scopes,
      tool,
      run: (payload, ctx) =>
        toolchain.aiCheck(context(ctx), { path: payloadString(payload, 'path') }),
    },
    'Ailang.Discover': {
      ops: ['builtins_list', 'examples_search'],
      scopes,
      tool,
      run: (payload, ctx) =>
        payload.op === 'builtins_list'
          ? toolchain.builtinsList(context(ctx))
          : toolchain.examplesSearch(context(ctx), { query: payloadString(payload, 'query') }),
    },
    'Ailang.CLI': {
      ops: Object.keys(CLI_OPS),
      scopes,
      tool,
      run: (payload, ctx) => toolchain.cli(context(ctx), payload),
    },
    'Ailang.Run': run,
    'Ailang.RunEnv': run,
    'Ailang.RunNet': run,
  };
}

/**
 * The canonical size a run output may reach (bytes): a handler's output cap
 * (HANDLER_OUTPUT_MAX_BYTES, the invocation output cap less the world block the planner adds).
 * @internal exported for ailang.spec.ts
 */
export const RUN_OUTPUT_BUDGET_BYTES = HANDLER_OUTPUT_MAX_BYTES;

/**
 * Fits a run's output under the handler output cap (HANDLER_OUTPUT_MAX_BYTES, under 1 MiB of
 * canonical JSON), which is below the AILANG policy's own output cap (max_output_bytes, 8 MiB,
 * ailang.md §1.5): a program that prints more than fits keeps its outcome shape, exit code and
 * limit, and World keeps the head of each stream, marking a cut one with `stdout_truncated` /
 * `stderr_truncated: true`. Without this the whole output would be refused as oversized and the
 * agent would see a bare failed effect.
 * @param out the toolchain's run output ({admitted, exit_code, decision, limit, stdout, stderr, …})
 * @param budget the largest canonical size in bytes
 * @returns `out` itself when it fits, else a copy with the streams cut (never splitting a
 *   surrogate pair)
 * @internal exported for ailang.spec.ts
 */
export function fitRunOutput(
  out: Record<string, unknown>,
  budget: number,
): Record<string, unknown> {
  let size = canonicalBytes(out).length;
  if (size <= budget) return out;
  const fitted: Record<string, unknown> = { ...out };
  for (const key of ['stdout', 'stderr'] as const) {
    if (typeof fitted[key] === 'string') fitted[`${key}_truncated`] = false;
  }
  size = canonicalBytes(fitted).length;
  while (size > budget) {
    // Cut the longer stream in proportion to the excess (escapes make bytes per char vary).
    const key =
      String(fitted.stdout ?? '').length >= String(fitted.stderr ?? '').length
        ? 'stdout'
        : 'stderr';
    const text = fitted[key];
    if (typeof text !== 'string' || text.length === 0) break;
    const keep = Math.floor(text.length * Math.max(0, 1 - (size - budget) / size) * 0.98);
    fitted[key] = headOf(text, keep);
    fitted[`${key}_truncated`] = true;
    size = canonicalBytes(fitted).length;
  }
  return fitted;
}

/** The first `n` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
function headOf(text: string, n: number): string {
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
