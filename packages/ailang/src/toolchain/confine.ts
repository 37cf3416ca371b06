import { ReadFailure, type SourceReader } from '../lang/program.js';
import { confinePath, confineRoot } from '../confine/resolve.js';
import { toolRefusalText } from '../confine/rules.js';
import { HARD_LINKED, NOT_REGULAR, readRegularText } from '../runtime/regular-file.js';

/**
 * Confinement of the paths toolchain operations receive (world-spec §8.2 "Refused paths",
 * "Flag injection"), through World's one confinement rule (confine/resolve.ts): `..` escapes,
 * absolute paths outside the worktree, symlinks pointing out and hard-linked files are refused
 * with `<op> <path>: path "<path>" escapes sandbox "<worktree>"[: it has N hard links]`; a
 * leading `-` is refused as flag-like.
 */

/** Why a path was refused, or null when it may be used. Never touches file contents. */
export function pathRefusal(op: string, path: string, worktree: string): string | null {
  if (path.startsWith('-')) return `${op} ${path}: path "${path}" looks like a flag`;
  if (path === '') return `${op}: path is empty`;
  try {
    const confined = confinePath(confineRoot(worktree), path, 'read', []);
    return confined.ok ? null : toolRefusalText(op, path, worktree, confined.refusal);
  } catch (e) {
    return `${op} ${path}: ${(e as Error).message}`;
  }
}

/**
 * A SourceReader over the worktree: module files resolve inside it (confinePath), with Go-style
 * messages (`open nope.ail: no such file or directory`); a hard-linked module is refused like an
 * escape, checked again on the open file.
 */
export function worktreeReader(worktree: string): SourceReader {
  const root = confineRoot(worktree);
  return {
    read(rel: string): string {
      let real: string;
      try {
        const confined = confinePath(root, rel, 'read', []);
        if (!confined.ok)
          throw new ReadFailure(toolRefusalText('open', rel, worktree, confined.refusal));
        real = confined.abs;
      } catch (e) {
        if (e instanceof ReadFailure) throw e;
        throw new ReadFailure(`open ${rel}: ${(e as Error).message}`);
      }
      try {
        return readRegularText(real);
      } catch (e) {
        const err = e as NodeJS.ErrnoException & { links?: number };
        const code = err.code;
        if (code === 'EISDIR') throw new ReadFailure(`read ${rel}: is a directory`);
        if (code === HARD_LINKED)
          throw new ReadFailure(
            toolRefusalText('open', rel, worktree, { kind: 'links', links: err.links ?? 2 }),
          );
        const text =
          code === 'ENOENT'
            ? 'no such file or directory'
            : code === 'EACCES'
              ? 'permission denied'
              : code === NOT_REGULAR
                ? 'not a regular file'
                : err.message;
        throw new ReadFailure(`open ${rel}: ${text}`);
      }
    },
  };
}
