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
 * - `renderPolicyToml` / `policyDigest` — the per-cap-set run policies; `CLI_OPS` — the
 *   ailang-cli ops;
 * - `confinePath` / `toolRefusalText` / `hasExtraLinks` / `isInside` — World's one
 *   confinement rule (world-spec §2.3, §8.2), which the broker's workspace handlers, this
 *   package's sandbox and its toolchain path checks all apply (confine/resolve.ts).
 *
 * The toolchains themselves, the run outcome classifier and the errors operations throw
 * (`RunEnvelopeError`, `OperatorGateError`, `ToolProcessError`, `PolicyMismatchError`, recorded
 * by the broker as failed effects) are exported for this package's integration suites and the
 * CLI's end-to-end suite only.
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
/** @internal exported for test/integration/*.int-spec.ts, apps/cli/test/e2e/ailang-tools.e2e-spec.ts */
export { embeddedToolchain, EMBEDDED_VERSION } from './toolchain/embedded.js';
/** @internal exported for test/integration/binary-adapter.int-spec.ts */
export { binaryToolchain } from './toolchain/binary.js';
/** @internal exported for test/integration/embedded-toolchain.int-spec.ts */
export { classifyRunOutcome } from './policy/outcome.js';
/** @internal exported for test/integration/binary-adapter.int-spec.ts, net.int-spec.ts */
export {
  OperatorGateError,
  PolicyMismatchError,
  RunEnvelopeError,
  ToolProcessError,
} from './errors.js';
export { policyDigest, renderPolicyToml } from './policy/policy.js';
export { CLI_OPS } from './cli/ops.js';
/** @internal exported for apps/cli/test/e2e/ailang-tools.e2e-spec.ts, embedded-toolchain.int-spec.ts */
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
