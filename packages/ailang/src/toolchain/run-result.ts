import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import type { RunOutcome } from '../policy/outcome.js';
import type { EffectivePolicy } from '../policy/policy.js';

/**
 * The result of one `ailang-run` as both toolchains answer it (world-spec §3.5 result keys), with
 * the toolchain's own messages shown relative to the worktree: where a message names the
 * worktree's absolute host path (`escapes sandbox "/srv/…/wt"`, the `policy:` line's
 * `fs_sandbox`), the agent sees `.` and worktree-relative paths instead, so no host layout leaks
 * into the result. The policy file, which lies outside the worktree (world-spec §7.5
 * `<db-dir>/policies/<episode>.toml`), is shown by its path relative to the worktree
 * (`../../.world/policies/ep1.toml`). Only toolchain-written text is rewritten — the `Error:`,
 * `Warning`, `policy:` and `policy-result:` lines of stderr, `decision.message`,
 * `limit.message`, and the decision JSON a refused run prints on stdout — never the output of a
 * program that ran.
 */
export function runResult(
  outcome: RunOutcome,
  policy: EffectivePolicy,
  worktree: string,
): Record<string, unknown> {
  const inWorktree = worktreeRelative(worktree);
  const policyFile = policyRelative(policy.path, worktree);
  const rel = (text: string): string => inWorktree(policyFile(text));
  const o = outcome as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...o };
  // A refused run never started the program: its stdout is the toolchain's decision JSON.
  if (!outcome.admitted && typeof o.stdout === 'string') out.stdout = rel(o.stdout);
  if (typeof o.stderr === 'string') {
    out.stderr = o.stderr
      .split('\n')
      .map((line) => (TOOLCHAIN_LINE.test(line) ? rel(line) : line))
      .join('\n');
  }
  for (const key of ['decision', 'limit'] as const) {
    const v = o[key];
    if (
      v !== null &&
      typeof v === 'object' &&
      typeof (v as { message?: unknown }).message === 'string'
    ) {
      out[key] = { ...v, message: rel((v as { message: string }).message) };
    }
  }
  out.policy = {
    digest: policy.digest,
    security_mode: policy.security_mode,
    caps: policy.allowed_caps,
    net_allow: policy.net_allow,
  };
  return out;
}

// The stderr lines the toolchain itself writes (ailang.md §1.5 outcome table).
const TOOLCHAIN_LINE = /^(Error: |Warning|WARNING |policy: |policy-result: )/;

/** A rewriter of the policy file's absolute path (given and real) to its worktree-relative path. */
function policyRelative(policyPath: string, worktree: string): (text: string) => string {
  if (!policyPath.startsWith('/')) return (text) => text;
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const shown = relative(real(worktree), real(policyPath));
  const paths = [...new Set([policyPath, real(policyPath)])].sort((a, b) => b.length - a.length);
  return (text) => paths.reduce((t, p) => t.split(p).join(shown), text);
}

/**
 * A rewriter of `<worktree>/x` to `x` and of the bare worktree to `.` (given and real path).
 * @internal exported for run-result.spec.ts
 */
export function worktreeRelative(worktree: string): (text: string) => string {
  const roots = new Set([worktree.replace(/\/+$/, '')]);
  try {
    roots.add(realpathSync(worktree));
  } catch {
    // a worktree that no longer exists has no real path to hide
  }
  const sorted = [...roots].filter((r) => r !== '').sort((a, b) => b.length - a.length);
  return (text) => {
    let t = text;
    for (const root of sorted) {
      t = t.split(`${root}/`).join('');
      t = t.replace(new RegExp(`${escapeRegExp(root)}(?=["'\\s,:)]|$)`, 'g'), '.');
    }
    return t;
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
