import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isInside } from '../confine/rules.js';
import { PolicyMismatchError } from '../errors.js';
import {
  capsTag,
  checkOperatorGates,
  effectivePolicy,
  policyDigest,
  policyVariant,
  renderPolicyToml,
  type EffectivePolicy,
  type RunPolicy,
} from '../policy/policy.js';
import { pathRefusal } from './confine.js';
import { checkRunPayload, type RunPayload } from './run-payload.js';
import type { AilangContext } from './types.js';

/**
 * Helpers both toolchains share to turn an AilangContext into what an operation needs: the
 * checked sandbox, the handler's minimal child environment (world-spec §7.5), and the policy a
 * run uses with its file path and bytes.
 */

/**
 * The policy's fs_sandbox must be the worktree (world-internals §8.2: the handler requires
 * `fs_sandbox == root`), and the policy file and the cache must lie outside it (world-spec
 * §8.2: agents cannot edit their own policy or cache).
 * @throws PolicyMismatchError otherwise
 */
export function assertSandboxIsWorktree(ctx: AilangContext): void {
  const root = resolve(ctx.worktree);
  if (resolve(ctx.policy.fs_sandbox) !== root) {
    throw new PolicyMismatchError(
      `policy fs_sandbox "${ctx.policy.fs_sandbox}" is not the worktree "${ctx.worktree}"`,
    );
  }
  const places: [string, string][] = [
    ['policy file', ctx.policyPath],
    ['cache directory', cacheDirOf(ctx)],
  ];
  for (const [what, path] of places) {
    if (isInside(root, resolve(path))) {
      throw new PolicyMismatchError(
        `the ${what} "${path}" lies inside the worktree "${ctx.worktree}"`,
      );
    }
  }
}

/** The per-episode cache directory: ctx.cacheDir, else `<policy dir>/cache/<policy stem>`. */
export function cacheDirOf(ctx: AilangContext): string {
  return (
    ctx.cacheDir ??
    join(dirname(ctx.policyPath), 'cache', basename(ctx.policyPath).replace(/\.toml$/, ''))
  );
}

/**
 * The environment of every child process and of a program's `std/env` (world-spec §7.5):
 * exactly HOME, PATH, LANG, LC_ALL, AILANG_CACHE_DIR, plus AILANG_EXAMPLES with a corpus.
 */
export function childEnv(ctx: AilangContext): Record<string, string> {
  const cache = cacheDirOf(ctx);
  const env: Record<string, string> = {
    HOME: cache,
    PATH: '/usr/bin:/bin',
    LANG: 'C',
    LC_ALL: 'C',
    AILANG_CACHE_DIR: cache,
  };
  if (ctx.examplesDir !== undefined) env.AILANG_EXAMPLES = ctx.examplesDir;
  return env;
}

/** The policy file of a variant: next to the episode policy, tagged by its cap set. */
function variantPath(policyPath: string, p: RunPolicy): string {
  const stem = basename(policyPath).replace(/\.toml$/, '');
  return join(
    dirname(policyPath),
    `${stem}.${capsTag(p)}${p.security_mode === 'trusted_host' ? '.trusted' : ''}.toml`,
  );
}

/** The policy a run with `caps` uses, with its file path and exact bytes. */
export interface ResolvedRunPolicy {
  policy: RunPolicy;
  path: string;
  bytes: string;
  isBase: boolean;
  effective: EffectivePolicy;
}

/**
 * Resolves the run policy of a cap set: the episode policy (its file's bytes, or its rendering
 * when the file is absent) or a rendered variant.
 */
export function resolveRunPolicy(ctx: AilangContext, caps: readonly string[]): ResolvedRunPolicy {
  const variant = policyVariant(ctx.policy, caps, ctx.netAllow, ctx.netAllowHttp === true);
  const isBase = variant === ctx.policy;
  const path = isBase ? ctx.policyPath : variantPath(ctx.policyPath, variant);
  const bytes = isBase ? basePolicyBytes(ctx) : renderPolicyToml(variant);
  return {
    policy: variant,
    path,
    bytes,
    isBase,
    effective: effectivePolicy(variant, path, policyDigest(bytes)),
  };
}

/** The episode policy's bytes: its file when readable, else its rendering. */
function basePolicyBytes(ctx: AilangContext): string {
  try {
    return readFileSync(ctx.policyPath, 'utf8');
  } catch {
    return renderPolicyToml(ctx.policy);
  }
}

/** A run both toolchains may start: its checked payload and the policy it runs under. */
export interface PreparedRun {
  run: RunPayload;
  resolved: ResolvedRunPolicy;
}

/**
 * What every toolchain checks before a run starts, in this order (world-spec §3.5, §8.2;
 * world-internals §8.2): the payload as the plan would have built it, the operator gates of its
 * caps, the policy's sandbox being the worktree, and the entry path confined to it; then the
 * policy of its cap set.
 * @param ctx the episode's toolchain context
 * @param payload the Ailang.Run payload `{path, args_json?, stdin?, argv?, caps?}`
 * @returns the prepared run, or the refusal output `{ok:false, refused}` (a payload the plan
 *   would have refused, an entry path outside the worktree)
 * @throws OperatorGateError when a cap is not enabled by the operator; PolicyMismatchError when
 *   fs_sandbox is not the worktree or the policy file or cache lies inside it
 */
export function prepareRun(
  ctx: AilangContext,
  payload: Record<string, unknown>,
): PreparedRun | { ok: false; refused: string } {
  const run = checkRunPayload(payload);
  if ('refused' in run) return { ok: false, refused: run.refused };
  checkOperatorGates(run.caps, ctx);
  assertSandboxIsWorktree(ctx);
  const refusal = pathRefusal('run', run.path, ctx.worktree);
  if (refusal !== null) return { ok: false, refused: refusal };
  return { run, resolved: resolveRunPolicy(ctx, run.caps) };
}
