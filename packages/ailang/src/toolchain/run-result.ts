import { realpathSync } from 'node:fs';
import type { RunOutcome } from '../policy/outcome.js';
import type { EffectivePolicy } from '../policy/policy.js';

/**
 * The result of one `ailang-run` as both toolchains answer it (world-spec §3.5 result keys), with
 * the toolchain's own messages shown relative to the worktree: where a message names the
 * worktree's absolute host path (`escapes sandbox "/srv/…/wt"`, the `policy:` line's
 * `fs_sandbox`), the agent sees `.` and worktree-relative paths instead, so no host layout leaks
 * into the result. Only toolchain-written text is rewritten — the `Error:`, `Warning`, `policy:`
 * and `policy-result:` lines of stderr, `decision.message` and `limit.message` — never the
 * program's stdout.
 */
export function runResult(
  outcome: RunOutcome,
  policy: EffectivePolicy,
  worktree: string,
): Record<string, unknown> {
  const rel = worktreeRelative(worktree);
  const o = outcome as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...o };
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

/** A rewriter of `<worktree>/x` to `x` and of the bare worktree to `.` (given and real path). */
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
