import { createHash } from 'node:crypto';
import {
  AILANG_MAX_FS_TRANSFER_BYTES,
  AILANG_MAX_MODULE_GRAPH_BYTES,
  AILANG_MAX_OUTPUT_BYTES,
  AILANG_MAX_SOURCE_BYTES,
} from '@world/contracts';
import { OperatorGateError } from '../errors.js';
import type { AilangContext, AilangPolicy } from '../toolchain/types.js';

/**
 * Run policies: the capability variants World derives from the episode policy for one
 * `ailang-run` (world-spec §3.5 "Capability variants"), the operator gates checked before any
 * process starts, the TOML rendering of a variant, and the effective policy a run reports.
 */

/** The capabilities an ailang-run call may name (world-spec §3.5). */
export const RUN_CAPS = ['Clock', 'Declassify', 'Env', 'FS', 'IO', 'Net'] as const;
/** Caps every run may use without an operator gate. */
const UNGATED_CAPS = ['FS', 'IO'];
/** The default cap set of a run that names none. */
export const DEFAULT_RUN_CAPS = ['FS', 'IO'];

/** The byte limits of a policy (ailang.md §1.5; restricted defaults). */
interface PolicyLimits {
  max_source_bytes: number;
  max_module_graph_bytes: number;
  max_output_bytes: number;
  max_fs_transfer_bytes: number;
}

/** Restricted-mode defaults (ailang.md §1.5: 1 MiB / 16 MiB / 8 MiB / 8 MiB). */
const DEFAULT_LIMITS: PolicyLimits = {
  max_source_bytes: AILANG_MAX_SOURCE_BYTES,
  max_module_graph_bytes: AILANG_MAX_MODULE_GRAPH_BYTES,
  max_output_bytes: AILANG_MAX_OUTPUT_BYTES,
  max_fs_transfer_bytes: AILANG_MAX_FS_TRANSFER_BYTES,
};

/** A policy a run uses: the episode policy or one of its variants, with explicit limits when set. */
export interface RunPolicy extends AilangPolicy {
  limits?: PolicyLimits;
}

/**
 * Checks the operator gates of a run's caps (world-spec §3.5): every cap beyond IO and FS must
 * be in `runAllowCaps`; Net also needs at least one operator `IP:PORT`.
 * @throws OperatorGateError naming the first gated cap
 */
export function checkOperatorGates(
  caps: readonly string[],
  ctx: Pick<AilangContext, 'runAllowCaps' | 'netAllow'>,
): void {
  for (const cap of [...caps].sort()) {
    if (UNGATED_CAPS.includes(cap)) continue;
    if (!ctx.runAllowCaps.includes(cap)) {
      throw new OperatorGateError(
        `capability "${cap}" is not enabled by the operator: the daemon must be started with --run-allow-caps ${cap}`,
        cap,
      );
    }
    if (cap === 'Net' && ctx.netAllow.length === 0) {
      throw new OperatorGateError(
        'capability "Net" needs an operator network allowance: the daemon must be started with --run-net-allow 127.0.0.1:PORT',
        cap,
      );
    }
  }
}

/**
 * The policy a run with `caps` uses (world-spec §3.5): IO/FS/Declassify subsets stay
 * restricted with FS always allowed but budgeted 0 when not requested; Net adds the operator's
 * `net_allow`, and `net_allow_http = true` when the operator allows plain http
 * (`--run-net-allow-http`, world-spec §7.2); Env switches to `trusted_host` with a `.git/**`
 * deny entry and explicit byte limits at the restricted defaults. Declassify changes nothing in
 * the AILANG policy.
 * @param netAllow the operator's `IP:PORT` literals
 * @param netAllowHttp whether the operator allows plain http to them (default: https only)
 * @returns the episode policy itself when nothing changes
 */
export function policyVariant(
  base: AilangPolicy,
  caps: readonly string[],
  netAllow: readonly string[],
  netAllowHttp = false,
): RunPolicy {
  const requested = new Set(caps);
  const allowed = new Set(['FS']);
  // Clock (std/clock: now, sleep) is a restricted-mode capability (ailang.md §1.5): it only adds
  // its label; sleeps stay bounded by timeout_ms.
  for (const c of ['IO', 'Net', 'Env', 'Clock']) if (requested.has(c)) allowed.add(c);
  const variant: RunPolicy = {
    ...base,
    allowed_caps: [...allowed].sort(),
    budgets: { FS: requested.has('FS') ? base.budgets.FS : 0 },
  };
  if (requested.has('Net')) {
    variant.net_allow = [...netAllow];
    if (netAllowHttp) variant.net_allow_http = true;
  }
  if (requested.has('Env')) {
    variant.security_mode = 'trusted_host';
    variant.fs_deny_write = base.fs_deny_write.includes('.git/**')
      ? [...base.fs_deny_write]
      : [...base.fs_deny_write, '.git/**'];
    variant.limits = { ...DEFAULT_LIMITS };
  }
  const same =
    variant.security_mode === base.security_mode &&
    sameSet(variant.allowed_caps, base.allowed_caps) &&
    variant.budgets.FS === base.budgets.FS &&
    variant.net_allow === base.net_allow &&
    variant.limits === undefined;
  return same ? base : variant;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
}

/**
 * A file-name-safe tag of a cap set: `Env-FS-IO`, with `-fs0` for an FS budget of 0 and `-http`
 * when plain http is allowed, so two variants that differ in either never share a file.
 */
export function capsTag(policy: AilangPolicy): string {
  return (
    [...policy.allowed_caps].sort().join('-') +
    (policy.budgets.FS === 0 ? '-fs0' : '') +
    (policy.net_allow_http === true ? '-http' : '')
  );
}

/**
 * Renders a run policy as TOML (ailang.md §1.5 keys; world-spec §7.6 order). Deterministic:
 * the same policy gives the same bytes, so the digest names it.
 */
export function renderPolicyToml(p: RunPolicy): string {
  const lines = [
    `security_mode = ${tomlString(p.security_mode)}`,
    `allowed_caps = [${p.allowed_caps.map(tomlString).join(', ')}]`,
    `fs_sandbox = ${tomlString(p.fs_sandbox)}`,
    `timeout_ms = ${p.timeout_ms}`,
    `fs_deny_write = [${p.fs_deny_write.map(tomlString).join(', ')}]`,
  ];
  if (p.net_allow !== undefined && p.net_allow.length > 0)
    lines.push(`net_allow = [${p.net_allow.map(tomlString).join(', ')}]`);
  if (p.net_allow_http === true) lines.push('net_allow_http = true');
  if (p.limits) {
    lines.push(`max_source_bytes = ${p.limits.max_source_bytes}`);
    lines.push(`max_module_graph_bytes = ${p.limits.max_module_graph_bytes}`);
    lines.push(`max_output_bytes = ${p.limits.max_output_bytes}`);
    lines.push(`max_fs_transfer_bytes = ${p.limits.max_fs_transfer_bytes}`);
  }
  lines.push(`entry = ${tomlString(p.entry)}`, '', '[budgets]', `FS = ${p.budgets.FS}`, '');
  return lines.join('\n');
}

/** A TOML basic string: quotes, backslashes and control characters escaped (TOML 1.0). */
function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < TOML_CONTROL_END || code === TOML_DELETE)
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// TOML forbids U+0000–U+001F and U+007F unescaped in basic strings.
const TOML_CONTROL_END = 0x20;
const TOML_DELETE = 0x7f;

/** sha256 hex of policy bytes: `policy_digest` (ailang.md §1.5). */
export function policyDigest(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The policy a run reports and enforces, with its file path and digest. */
export interface EffectivePolicy {
  path: string;
  digest: string;
  security_mode: 'restricted' | 'trusted_host';
  allowed_caps: string[];
  fs_sandbox: string;
  net_allow: string[];
  net_allow_http: boolean;
  entry: string;
  timeout_ms: number;
  budgets: Record<string, number>;
  fs_deny_write: string[];
  limits: PolicyLimits;
}

/** Builds the effective policy of a run policy. */
export function effectivePolicy(p: RunPolicy, path: string, digest: string): EffectivePolicy {
  return {
    path,
    digest,
    security_mode: p.security_mode,
    allowed_caps: [...p.allowed_caps].sort(),
    fs_sandbox: p.fs_sandbox,
    net_allow: [...(p.net_allow ?? [])],
    net_allow_http: p.net_allow_http === true,
    entry: p.entry,
    timeout_ms: p.timeout_ms,
    budgets: { ...p.budgets },
    fs_deny_write: [...p.fs_deny_write],
    limits: p.limits ?? { ...DEFAULT_LIMITS },
  };
}
