import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AilRuntimeError } from './values.js';
import { foldCase, matchDenyPattern } from './glob.js';

/**
 * Confinement of a program's file operations under a run policy (ailang.md §1.5 "runtime
 * confinement"; world-spec §8.2): every path resolves inside `fs_sandbox` (relative paths
 * against it; absolute paths only when they lie inside it; symlinks are resolved and must stay
 * inside), writes are refused under `.git` (restricted mode) and under `fs_deny_write`
 * patterns (case-folded), and the bytes moved are capped by `max_fs_transfer_bytes`.
 * Checks run before each operation; a concurrent rename between check and use is not
 * defended against (the worktree belongs to one episode, whose calls are serialised).
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
  /** restricted mode protects `.git` from writes */
  protectGit: boolean;
}

/** The sandbox of one run. */
export class Sandbox {
  readonly realRoot: string;
  private transferred = 0;

  /** @throws Error when the root does not exist */
  constructor(private readonly options: SandboxOptions) {
    this.realRoot = realpathSync(options.root);
  }

  private escape(op: string, p: string): SandboxViolation {
    return new SandboxViolation(`${op}: path "${p}" escapes sandbox "${this.options.root}"`);
  }

  private inside(abs: string): boolean {
    return (
      abs === this.realRoot ||
      abs.startsWith(this.realRoot.endsWith(sep) ? this.realRoot : this.realRoot + sep)
    );
  }

  /**
   * Resolves a program path to an absolute real path inside the sandbox.
   * @param op the builtin name, for messages (`readFile`)
   * @param mode 'write' also applies the `.git` and deny-list rules
   * @throws SandboxViolation (`<op>: path "<p>" escapes sandbox "<root>"`, `E_FS_PROTECTED`)
   */
  resolve(op: string, p: string, mode: 'read' | 'write'): string {
    if (p === '' || p.includes('\0'))
      throw new IoFailure(`${op}: invalid path ${JSON.stringify(p)}`);
    let abs: string;
    if (isAbsolute(p)) {
      const given = resolve(this.options.root);
      const norm = resolve(p);
      if (norm === given || norm.startsWith(given + sep))
        abs = join(this.realRoot, relative(given, norm));
      else abs = norm;
    } else {
      abs = resolve(this.realRoot, p);
    }
    if (!this.inside(abs)) throw this.escape(op, p);
    const real = this.realOf(abs, op, p);
    if (!this.inside(real)) throw this.escape(op, p);
    if (mode === 'write') this.checkWritable(op, p, real);
    return real;
  }

  /** realpath of the longest existing prefix, plus the missing tail. */
  private realOf(abs: string, op: string, p: string): string {
    const tail: string[] = [];
    let cur = abs;
    while (true) {
      try {
        const real = realpathSync(cur);
        return tail.length === 0 ? real : join(real, ...tail);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR')
          throw new IoFailure(`${op}: ${(e as Error).message}`);
        // A dangling symlink would let a write land wherever it points: refuse it.
        try {
          if (lstatSync(cur).isSymbolicLink()) throw this.escape(op, p);
        } catch (inner) {
          if (inner instanceof SandboxViolation) throw inner;
        }
        const parent = dirname(cur);
        if (parent === cur) return abs;
        tail.unshift(basename(cur));
        cur = parent;
      }
    }
  }

  private checkWritable(op: string, p: string, real: string): void {
    const rel = relative(this.realRoot, real).split(sep).join('/');
    if (rel === '') return;
    if (this.options.protectGit && foldCase(rel.split('/')[0]!) === '.git') {
      throw new SandboxViolation(
        `${op}: E_FS_PROTECTED: path "${p}" is under .git, which is read-only in restricted mode`,
      );
    }
    for (const pattern of this.options.denyWrite) {
      if (matchDenyPattern(pattern, rel)) {
        throw new SandboxViolation(
          `${op}: E_FS_PROTECTED: path "${p}" matches fs_deny_write "${pattern}" — read-only under this policy`,
        );
      }
    }
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
