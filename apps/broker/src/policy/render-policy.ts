import { createHash } from 'node:crypto';
import { AILANG_FS_BUDGET } from '@world/contracts';

/**
 * The write deny list of every episode policy, in canonical lowercase form (world-spec §2.3,
 * §7.6; world-internals §8.2). Directories end in `/**`; the two files match the worktree root.
 */
export const FS_DENY_WRITE = [
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

/** A rendered episode policy: its TOML text and the digest tools report as `policy_digest`. */
export interface RenderedPolicy {
  text: string;
  /** sha256 of the rendered bytes, 64 lowercase hex, no prefix (world-spec §3.0) */
  digest: string;
}

/**
 * Renders an episode's AILANG policy file (world-spec §7.6, world-internals §8.2): restricted
 * mode, caps IO and FS, the worktree as fs_sandbox, the supervisor timeout, the deny list,
 * entry `main`, and the inner FS budget. Pure: the same input gives the same bytes, so the
 * digest identifies the policy. Key order is fixed (the reference leaves it undocumented).
 * @throws RangeError when timeoutMs is not a positive integer or worktree is not absolute
 */
export function renderPolicy(input: PolicyInput): RenderedPolicy {
  if (!Number.isInteger(input.timeoutMs) || input.timeoutMs <= 0) {
    throw new RangeError(`policy timeout must be a positive integer, got ${input.timeoutMs}`);
  }
  if (!input.worktree.startsWith('/'))
    throw new RangeError(`fs_sandbox must be absolute, got ${input.worktree}`);
  const text = [
    `security_mode = ${tomlString('restricted')}`,
    `allowed_caps = [${['IO', 'FS'].map(tomlString).join(', ')}]`,
    `fs_sandbox = ${tomlString(input.worktree)}`,
    `timeout_ms = ${input.timeoutMs}`,
    `fs_deny_write = [${FS_DENY_WRITE.map(tomlString).join(', ')}]`,
    `entry = ${tomlString('main')}`,
    '',
    '[budgets]',
    `FS = ${AILANG_FS_BUDGET}`,
    '',
  ].join('\n');
  return { text, digest: createHash('sha256').update(text, 'utf8').digest('hex') };
}

/** A TOML basic string (TOML 1.0 §String): quotes, backslashes and control characters escaped. */
export function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < CONTROL_END || code === DELETE)
      out += `\\u${code.toString(HEX).padStart(UNICODE_ESCAPE_WIDTH, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// TOML forbids U+0000–U+001F and U+007F unescaped in basic strings; \uXXXX is four hex digits.
const CONTROL_END = 0x20;
const DELETE = 0x7f;
const HEX = 16;
const UNICODE_ESCAPE_WIDTH = 4;
