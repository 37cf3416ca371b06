import { ConfineRaceError } from '../confine/open.js';
import {
  confineName,
  confinePath,
  confineRoot,
  type ConfineRoot,
  type Confined,
} from '../confine/resolve.js';
import { programRefusalText, type Refusal } from '../confine/rules.js';
import { AilRuntimeError } from './values.js';

/**
 * Confinement of a program's file operations under a run policy (ailang.md §1.5 "runtime
 * confinement"; world-spec §8.2): every path goes through World's one confinement rule
 * (confine/resolve.ts: inside `fs_sandbox`, symlinks resolved inside it, no hard links, no
 * writes under any `.git` or matching `fs_deny_write`), and the bytes moved are capped by
 * `max_fs_transfer_bytes`.
 */

/**
 * A refusal by the sandbox: fatal even for the `*Result` builtins.
 * @internal exported for io-fs.spec.ts, sandbox.spec.ts
 */
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
    return this.judged(op, p, () => confinePath(this.root, p, mode, this.options.denyWrite));
  }

  /**
   * Resolves the name a remove or rename acts on, without following its last component
   * (confineName): a symlink inside the sandbox is removed or moved itself.
   * @throws as resolve
   */
  resolveName(op: string, p: string): string {
    return this.judged(op, p, () => confineName(this.root, p, this.options.denyWrite));
  }

  /** The sandbox's real root (every confined path lies under it). */
  get realRoot(): string {
    return this.root.real;
  }

  /** The real segments of a path resolve or resolveName returned, under realRoot. */
  segmentsOf(abs: string): string[] {
    return abs === this.root.real ? [] : abs.slice(this.root.real.length + 1).split('/');
  }

  /**
   * Runs an operation on a resolved path through the race-free opens of confine/open.ts: a
   * component that became a symlink after the check is refused as an escape.
   * @throws SandboxViolation (`<op>: path "<p>" escapes sandbox "<root>"`); whatever f throws
   */
  guard<T>(op: string, p: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof ConfineRaceError) this.refuse(op, p, { kind: 'escape' });
      throw e;
    }
  }

  /**
   * Refuses a path in the program's words.
   * @throws IoFailure for an empty path or a loop, SandboxViolation for every other refusal
   */
  refuse(op: string, p: string, r: Refusal): never {
    const text = programRefusalText(op, p, this.options.root, r, this.options.securityMode);
    if (r.kind === 'invalid' || r.kind === 'loop') throw new IoFailure(text);
    throw new SandboxViolation(text);
  }

  private judged(op: string, p: string, confine: () => Confined): string {
    let confined;
    try {
      confined = confine();
    } catch (e) {
      throw new IoFailure(`${op}: ${(e as Error).message}`);
    }
    if (confined.ok) return confined.abs;
    return this.refuse(op, p, confined.refusal);
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
