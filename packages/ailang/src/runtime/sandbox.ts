import { confinePath, confineRoot, type ConfineRoot } from '../confine/resolve.js';
import { programRefusalText } from '../confine/rules.js';
import { AilRuntimeError } from './values.js';

/**
 * Confinement of a program's file operations under a run policy (ailang.md §1.5 "runtime
 * confinement"; world-spec §8.2): every path goes through World's one confinement rule
 * (confine/resolve.ts: inside `fs_sandbox`, symlinks resolved inside it, no hard links, no
 * writes under any `.git` or matching `fs_deny_write`), and the bytes moved are capped by
 * `max_fs_transfer_bytes`.
 */

/** A refusal by the sandbox: fatal even for the `*Result` builtins. */
export class SandboxViolation extends AilRuntimeError {}

/** An ordinary I/O failure (missing file…): the `*Result` builtins turn it into Err. */
export class IoFailure extends AilRuntimeError {}

/** How a sandbox is configured. */
export interface SandboxOptions {
  /** fs_sandbox as written in the policy */
  root: string;
  denyWrite: readonly string[];
  /** max_fs_transfer_bytes */
  transferMax: number;
  /** the policy's security_mode (only the wording of a `.git` refusal depends on it) */
  securityMode: 'restricted' | 'trusted_host';
}

/** The sandbox of one run. */
export class Sandbox {
  private readonly root: ConfineRoot;
  private transferred = 0;

  /** @throws Error when the root does not exist */
  constructor(private readonly options: SandboxOptions) {
    this.root = confineRoot(options.root);
  }

  /**
   * Resolves a program path to an absolute real path inside the sandbox (confinePath).
   * @param op the builtin name, for messages (`readFile`)
   * @param mode 'write' for every operation that creates, changes, moves or removes
   * @throws SandboxViolation (`<op>: path "<p>" escapes sandbox "<root>"[: it has N hard links]`,
   *   `<op>: E_FS_PROTECTED: …`); IoFailure for an empty path, a symlink loop or a file system
   *   error while resolving
   */
  resolve(op: string, p: string, mode: 'read' | 'write'): string {
    let confined;
    try {
      confined = confinePath(this.root, p, mode, this.options.denyWrite);
    } catch (e) {
      throw new IoFailure(`${op}: ${(e as Error).message}`);
    }
    if (confined.ok) return confined.abs;
    const r = confined.refusal;
    const text = programRefusalText(op, p, this.options.root, r, this.options.securityMode);
    if (r.kind === 'invalid' || r.kind === 'loop') throw new IoFailure(text);
    throw new SandboxViolation(text);
  }

  /**
   * Counts bytes read or written.
   * @throws SandboxViolation past max_fs_transfer_bytes
   */
  transfer(op: string, bytes: number): void {
    if (this.transferred + bytes > this.options.transferMax) {
      throw new SandboxViolation(
        `${op}: max_fs_transfer_bytes (${this.options.transferMax}) exceeded`,
      );
    }
    this.transferred += bytes;
  }
}
