import { policyDigest, renderPolicyToml, type AilangPolicy } from '@world/ailang';
import { AILANG_FS_BUDGET } from '@world/contracts';

/**
 * The write deny list of every episode policy, in canonical lowercase form (world-spec §2.3,
 * §7.6; world-internals §8.2). Directories end in `/**`; the two files match the worktree root.
 */
const FS_DENY_WRITE = [
  '.github/**',
  '.pi/**',
  '.claude/**',
  '.ailang/**',
  '.gitmodules',
  '.gitattributes',
] as const;

/** What the rendered policy depends on. */
export interface PolicyInput {
  /** absolute real path of the episode worktree: the policy's fs_sandbox */
  worktree: string;
  /** the AILANG supervisor timeout in ms: deadlineTable().policyTimeoutMs (world-internals §8.2) */
  timeoutMs: number;
}

/** A rendered episode policy: its structure, TOML text and the digest tools report as `policy_digest`. */
export interface RenderedPolicy {
  /** the policy the AILANG toolchain enforces (its TOML is `text`) */
  policy: AilangPolicy;
  text: string;
  /** sha256 of the rendered bytes, 64 lowercase hex, no prefix (world-spec §3.0) */
  digest: string;
}

/**
 * Renders an episode's AILANG policy file (world-spec §7.6, world-internals §8.2): restricted
 * mode, caps IO and FS, the worktree as fs_sandbox, the supervisor timeout, the deny list,
 * entry `main`, and the inner FS budget. The TOML encoding is the AILANG package's
 * (renderPolicyToml), so the broker and the toolchain agree byte for byte. Pure: the same input
 * gives the same bytes, so the digest identifies the policy.
 * @throws RangeError when timeoutMs is not a positive integer or worktree is not absolute
 */
export function renderPolicy(input: PolicyInput): RenderedPolicy {
  if (!Number.isInteger(input.timeoutMs) || input.timeoutMs <= 0) {
    throw new RangeError(`policy timeout must be a positive integer, got ${input.timeoutMs}`);
  }
  if (!input.worktree.startsWith('/'))
    throw new RangeError(`fs_sandbox must be absolute, got ${input.worktree}`);
  const policy: AilangPolicy = {
    security_mode: 'restricted',
    allowed_caps: ['IO', 'FS'],
    fs_sandbox: input.worktree,
    timeout_ms: input.timeoutMs,
    fs_deny_write: [...FS_DENY_WRITE],
    entry: 'main',
    budgets: { FS: AILANG_FS_BUDGET },
  };
  const text = renderPolicyToml(policy);
  return { policy, text, digest: policyDigest(text) };
}
