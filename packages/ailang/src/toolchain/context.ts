import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { PolicyMismatchError } from '../errors.js';
import {
  capsTag,
  effectivePolicy,
  policyDigest,
  policyVariant,
  renderPolicyToml,
  type EffectivePolicy,
  type RunPolicy,
} from '../policy/policy.js';
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
    const p = resolve(path);
    if (p === root || p.startsWith(root + sep)) {
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
export function variantPath(policyPath: string, p: RunPolicy): string {
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
export function basePolicyBytes(ctx: AilangContext): string {
  try {
    return readFileSync(ctx.policyPath, 'utf8');
  } catch {
    return renderPolicyToml(ctx.policy);
  }
}
