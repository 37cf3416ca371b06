/**
 * The typed failures a toolchain operation throws. The broker records each as a failed effect
 * (world-spec §3.5: "anything else recorded as a failed effect, never guessed";
 * world-internals §8.2 AilangRunEnvelopeError). Match on the class or on `code`, never on text.
 */

/** Base class of every toolchain failure. */
abstract class AilangToolchainError extends Error {
  abstract readonly code: string;
}

/**
 * `ailang run` ended in none of the four documented outcome shapes (world-internals §8.2).
 * `raw` keeps what the process produced, for the failed effect's record.
 */
export class RunEnvelopeError extends AilangToolchainError {
  readonly code = 'run_envelope';
  constructor(
    message: string,
    readonly raw: { exitCode: number; stdout: string; stderr: string },
  ) {
    super(message);
    this.name = 'RunEnvelopeError';
  }
}

/**
 * A run asked for a capability the operator has not enabled (world-spec §3.5 operator gates:
 * caps beyond IO and FS need `--run-allow-caps`; Net also needs `--run-net-allow`). Raised
 * before any process or worker starts.
 */
export class OperatorGateError extends AilangToolchainError {
  readonly code = 'operator_gate';
  constructor(
    message: string,
    readonly cap: string,
  ) {
    super(message);
    this.name = 'OperatorGateError';
  }
}

/**
 * The binary could not be run, ran past the handler's deadline, overflowed its output cap,
 * exited non-zero where a zero exit is the contract (policy-tool), or answered something that is
 * not the documented response (world-internals §8.2 "any non-zero rc is a handler failure").
 */
export class ToolProcessError extends AilangToolchainError {
  readonly code = 'tool_process';
  constructor(
    message: string,
    readonly detail: {
      exitCode?: number | null;
      signal?: string | null;
      stdout?: string;
      stderr?: string;
    } = {},
  ) {
    super(message);
    this.name = 'ToolProcessError';
  }
}

/**
 * The policy in the context cannot be used: a policy-tool summary that disagrees with it, or a
 * policy file that cannot be read or written (world-internals §8.2: the handler verifies the
 * policy before first use).
 */
export class PolicyMismatchError extends AilangToolchainError {
  readonly code = 'policy_mismatch';
  constructor(message: string) {
    super(message);
    this.name = 'PolicyMismatchError';
  }
}
