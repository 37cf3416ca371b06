import { ReadFailure, type SourceReader } from '../lang/program.js';
import { NOT_REGULAR, readRegularText } from '../runtime/regular-file.js';
import { Sandbox, SandboxViolation } from '../runtime/sandbox.js';

/**
 * Confinement of the paths toolchain operations receive (world-spec §8.2 "Refused paths"):
 * `..` escapes, absolute paths outside the worktree and in-worktree symlinks pointing out are
 * refused with `<op> <path>: path "<path>" escapes sandbox "<worktree>"`; a leading `-` is
 * refused as flag-like (world-spec §8.2 "Flag injection").
 */

/** Why a path was refused, or null when it may be used. Never touches file contents. */
export function pathRefusal(op: string, path: string, worktree: string): string | null {
  if (path.startsWith('-')) return `${op} ${path}: path "${path}" looks like a flag`;
  if (path === '') return `${op}: path is empty`;
  try {
    new Sandbox({
      root: worktree,
      denyWrite: [],
      transferMax: Number.POSITIVE_INFINITY,
      protectGit: false,
    }).resolve(op, path, 'read');
  } catch (e) {
    if (e instanceof SandboxViolation)
      return `${op} ${path}: path "${path}" escapes sandbox "${worktree}"`;
    return `${op} ${path}: ${(e as Error).message}`;
  }
  return null;
}

/**
 * A SourceReader over the worktree: module files resolve inside it, with Go-style messages
 * (`open nope.ail: no such file or directory`).
 */
export function worktreeReader(worktree: string): SourceReader {
  const sandbox = new Sandbox({
    root: worktree,
    denyWrite: [],
    transferMax: Number.POSITIVE_INFINITY,
    protectGit: false,
  });
  return {
    read(rel: string): string {
      let real: string;
      try {
        real = sandbox.resolve('open', rel, 'read');
      } catch (e) {
        if (e instanceof SandboxViolation)
          throw new ReadFailure(`open ${rel}: path "${rel}" escapes sandbox "${worktree}"`);
        throw new ReadFailure(`open ${rel}: ${(e as Error).message}`);
      }
      try {
        return readRegularText(real);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EISDIR') throw new ReadFailure(`read ${rel}: is a directory`);
        const text =
          code === 'ENOENT'
            ? 'no such file or directory'
            : code === 'EACCES'
              ? 'permission denied'
              : code === NOT_REGULAR
                ? 'not a regular file'
                : (e as Error).message;
        throw new ReadFailure(`open ${rel}: ${text}`);
      }
    },
  };
}
