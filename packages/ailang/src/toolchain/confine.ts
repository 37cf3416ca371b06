import { ReadFailure, type SourceReader } from '../lang/program.js';
import { ConfineRaceError, openConfinedFile } from '../confine/open.js';
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

/** The Go-style texts of the errors a module read reports (`open nope.ail: <text>`). */
const READ_ERROR_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EACCES: 'permission denied',
  [NOT_REGULAR]: 'not a regular file',
};

/**
 * A SourceReader over the worktree: module files resolve inside it (confinePath) and are opened
 * through the race-free walk of confine/open.ts, with Go-style messages
 * (`open nope.ail: no such file or directory`); a hard-linked module, or a component swapped
 * for a symlink after the check, is refused like an escape (the link count checked again on the
 * open file).
 */
export function worktreeReader(worktree: string): SourceReader {
  const root = confineRoot(worktree);
  const escape = (rel: string) =>
    new ReadFailure(toolRefusalText('open', rel, worktree, { kind: 'escape' }));
  return {
    read(rel: string): string {
      let real: string;
      let segments: string[];
      try {
        const confined = confinePath(root, rel, 'read', []);
        if (!confined.ok)
          throw new ReadFailure(toolRefusalText('open', rel, worktree, confined.refusal));
        real = confined.abs;
        segments = confined.rel === '' ? [] : confined.rel.split('/');
      } catch (e) {
        if (e instanceof ReadFailure) throw e;
        throw new ReadFailure(`open ${rel}: ${(e as Error).message}`);
      }
      try {
        return readRegularText(real, undefined, (flags) =>
          openConfinedFile(root.real, segments, flags),
        );
      } catch (e) {
        if (e instanceof ConfineRaceError) throw escape(rel);
        const err = e as NodeJS.ErrnoException & { links?: number };
        const code = err.code;
        if (code === 'EISDIR') throw new ReadFailure(`read ${rel}: is a directory`);
        if (code === HARD_LINKED)
          throw new ReadFailure(
            toolRefusalText('open', rel, worktree, { kind: 'links', links: err.links ?? 2 }),
          );
        const text = (code === undefined ? undefined : READ_ERROR_TEXT[code]) ?? err.message;
        throw new ReadFailure(`open ${rel}: ${text}`);
      }
    },
  };
}
