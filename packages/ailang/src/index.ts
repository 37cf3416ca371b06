/**
 * @world/ailang — the AILANG toolchain of World (DESIGN.md §7.8): an embedded TypeScript subset
 * of the language core (lexer, parser, type and effect checker, interpreter, standard library,
 * policy runner in worker threads) and an adapter for a real `ailang` binary, behind one
 * interface the broker's Ailang.* handlers drive (world-spec §3.4–§3.8, world-internals §8.2).
 *
 * The broker imports:
 * - `Toolchain`, `AilangContext`, `AilangPolicy` — the interface and its inputs;
 * - `toolchainFromEnv(env)` — `binaryToolchain(AILANG_BIN)` when AILANG_BIN is set, else
 *   `embeddedToolchain()`;
 * - `classifyRunOutcome(raw)` / `RunOutcome` — the four run outcome shapes (world-internals §8.2);
 * - `RunEnvelopeError`, `OperatorGateError`, `ToolProcessError`, `PolicyMismatchError` — thrown
 *   by operations and recorded by the broker as failed effects (`AilangToolchainError` is their
 *   base class);
 * - `policyVariant` / `renderPolicyToml` / `policyDigest` — the per-cap-set run policies;
 * - `confinePath` / `toolRefusalText` / `hasExtraLinks` / `isInside` — World's one
 *   confinement rule (world-spec §2.3, §8.2), which the broker's workspace handlers, this
 *   package's sandbox and its toolchain path checks all apply (confine/resolve.ts).
 *
 * Operation results (all `Record<string, unknown>`):
 * - aiCheck / builtinsList / examplesSearch / cli → `{ok:true, argv, exit_code, stdout, stderr}`
 *   or `{ok:false, refused}` (world-spec wording); the broker stamps `tool` (see `toolRef()`)
 *   and `policy_digest`.
 * - run → `{admitted, exit_code, decision, limit, stdout, stderr, policy:{digest,
 *   security_mode, caps, net_allow}}`, or `{ok:false, refused}` for a path escaping the worktree
 *   or a payload the plan would have refused.
 */
import { binaryToolchain } from './toolchain/binary.js';
import { embeddedToolchain } from './toolchain/embedded.js';
import type { Toolchain } from './toolchain/types.js';

export type { AilangContext, AilangPolicy, Toolchain } from './toolchain/types.js';
export { embeddedToolchain, EMBEDDED_VERSION } from './toolchain/embedded.js';
export { binaryToolchain } from './toolchain/binary.js';
export { classifyRunOutcome } from './policy/outcome.js';
export {
  OperatorGateError,
  PolicyMismatchError,
  RunEnvelopeError,
  ToolProcessError,
} from './errors.js';
export { policyDigest, renderPolicyToml } from './policy/policy.js';
export { CLI_OPS } from './cli/ops.js';
export { NO_CORPUS_REFUSAL } from './cli/examples.js';
export { confinePath } from './confine/resolve.js';
export { ConfineRaceError, openParent } from './confine/open.js';
export { hasExtraLinks, isInside, toolRefusalText, type Access } from './confine/rules.js';

/**
 * The toolchain of this process: the binary named by AILANG_BIN, else the embedded subset
 * (DESIGN.md §7.8).
 * @param env the environment to read (default process.env)
 */
export function toolchainFromEnv(env: NodeJS.ProcessEnv = process.env): Toolchain {
  const bin = env.AILANG_BIN;
  return bin !== undefined && bin !== '' ? binaryToolchain(bin) : embeddedToolchain();
}
