import { NO_CORPUS_REFUSAL } from '../cli/examples.js';
import { validateCliRequest, type CliRequest } from '../cli/ops.js';
import { prepareRun, type PreparedRun } from './context.js';
import type { AilangContext } from './types.js';

/** A refused op request, as a handler output (world-spec §3.7, §3.8). */
type Refused = { ok: false; refused: string };

/**
 * The op methods of the Toolchain interface (world-spec §3.4, §3.7, §3.8), written once for the
 * embedded subset and the binary: which request each method sends, the no-corpus refusal of
 * §3.7 (before anything runs, and for every `examples_*` op of ailang-cli), and the argument
 * refusals of validateCliRequest (cli/ops.ts); and `run`'s checks before a run starts
 * (prepareRun). A toolchain states how it readies a context, how it runs one validated request
 * and how it runs one prepared run.
 */
export abstract class OpToolchain {
  /**
   * Readies the context before its request is validated (the binary verifies its policy file).
   * @returns the ailang-cli ops this toolchain serves for it, or undefined for every CLI_OPS op
   */
  protected abstract ready(ctx: AilangContext): Promise<readonly string[] | undefined>;

  /** Runs one validated request: `{ok:true, argv, exit_code, stdout, stderr}` or a refusal. */
  protected abstract op(ctx: AilangContext, req: CliRequest): Promise<Record<string, unknown>>;

  /** Runs one prepared run: the run result of run-result.ts (world-internals §8.2). */
  protected abstract runPrepared(
    ctx: AilangContext,
    prepared: PreparedRun,
  ): Promise<Record<string, unknown>>;

  async run(
    ctx: AilangContext,
    payload: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const prepared = prepareRun(ctx, payload);
    if ('refused' in prepared) return prepared;
    return this.runPrepared(ctx, prepared);
  }

  async aiCheck(ctx: AilangContext, payload: { path: string }): Promise<Record<string, unknown>> {
    await this.ready(ctx);
    return this.validated(ctx, { op: 'ai_check', path: payload.path });
  }

  async builtinsList(ctx: AilangContext): Promise<Record<string, unknown>> {
    await this.ready(ctx);
    return this.op(ctx, { op: 'builtins_list', flags: {} });
  }

  async examplesSearch(
    ctx: AilangContext,
    payload: { query: string },
  ): Promise<Record<string, unknown>> {
    if (ctx.examplesDir === undefined) return noCorpus();
    await this.ready(ctx);
    return this.validated(ctx, { op: 'examples_search', query: payload.query });
  }

  async cli(
    ctx: AilangContext,
    payload: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const allowed = await this.ready(ctx);
    const checked = validateCliRequest(payload, ctx.worktree, allowed);
    if ('refused' in checked) return { ok: false, refused: checked.refused };
    if (checked.op.startsWith('examples_') && ctx.examplesDir === undefined) return noCorpus();
    return this.op(ctx, checked);
  }

  private async validated(
    ctx: AilangContext,
    payload: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const checked = validateCliRequest(payload, ctx.worktree);
    if ('refused' in checked) return { ok: false, refused: checked.refused };
    return this.op(ctx, checked);
  }
}

function noCorpus(): Refused {
  return { ok: false, refused: NO_CORPUS_REFUSAL };
}
