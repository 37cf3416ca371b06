import { join } from 'node:path';
import { parseRef, type Ref } from '@world/canonical';
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
  /** per-episode cache/HOME of binary subprocesses: <cacheRoot>/<episode> (world-spec §7.5) */
  cacheRoot: string;
}

/** The op name the broker checks for the run path, whose payload carries no `op` (world-spec §2.6). */
export const RUN_OP = 'run';

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
    deadlineMs: Math.max(1, ctx.deadline - Date.now()),
    cacheDir: join(settings.cacheRoot, ctx.episodeId),
  });
  const scopes = ['worktree'];
  const run: EffectHandler = {
    ops: [RUN_OP],
    opOf: () => RUN_OP,
    scopes,
    tool,
    stamp: false,
    run: (payload, ctx) => toolchain.run(context(ctx), payload),
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
