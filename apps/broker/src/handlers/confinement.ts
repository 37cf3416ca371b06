import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FS_DENY_WRITE } from '../policy/render-policy.js';
import { HandlerInputError } from './registry.js';

/** The verbs of the workspace handlers; they prefix every refusal (world-spec §3.1–§3.3). */
export type FileVerb = 'read' | 'write' | 'edit';

/** A path confined to the worktree, or the refusal text. */
export type Resolution =
  | {
      ok: true;
      /** absolute path with every existing symlink resolved (what the handler touches) */
      abs: string;
      /** that path relative to the worktree, `/`-separated ('' for the worktree itself) */
      rel: string;
    }
  | { ok: false; refused: string };

/** `<verb> <p>: path "<p>" escapes sandbox "<worktree>"` (world-spec §3.1, §8.2). */
export function escapeRefusal(verb: FileVerb, path: string, worktree: string): string {
  return `${verb} ${path}: path "${path}" escapes sandbox "${worktree}"`;
}

/** True when `candidate` is `root` or lies under it (a name prefix such as `ep` vs `ep2` is not). */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Resolves an agent's path inside an episode worktree without ever leaving it
 * (world-spec §8.2 "Refused paths"): absolute paths and `..` past the root escape; every
 * existing component is lstat'ed and a symlink is followed only when its real target stays in
 * the worktree (a symlink out, or into a sibling episode sharing a name prefix, escapes).
 * Components that do not exist yet are kept lexically (a write creates them).
 * Residual: the check and the later open are separate steps; the episode lease serializes the
 * only writers of the worktree (the episode's own tools).
 * @param worktree absolute real path of the worktree
 * @param verb read | write | edit, for the refusal text
 * @param path the agent's path, relative to the worktree
 * @throws HandlerInputError for an empty path or one containing NUL (a malformed payload)
 */
export async function resolveInWorktree(
  worktree: string,
  verb: FileVerb,
  path: string,
): Promise<Resolution> {
  if (path === '' || path.includes('\0'))
    throw new HandlerInputError('payload field "path" must be a non-empty path');
  const escape: Resolution = { ok: false, refused: escapeRefusal(verb, path, worktree) };
  if (isAbsolute(path)) return escape;
  const segments = normalizeSegments(path);
  if (segments === null) return escape;
  let real = worktree;
  for (let i = 0; i < segments.length; i++) {
    const candidate = join(real, segments[i]!);
    const info = await lstat(candidate).catch((err: NodeJS.ErrnoException) => {
      // ENAMETOOLONG: nothing by that name can exist; the operation reports it with its text.
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR' || err.code === 'ENAMETOOLONG')
        return null;
      throw err;
    });
    if (info === null) {
      // The rest does not exist: the operation itself reports it (or a write creates it).
      real = join(candidate, ...segments.slice(i + 1));
      break;
    }
    if (!info.isSymbolicLink()) {
      real = candidate;
      continue;
    }
    const target = await realpath(candidate).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (target === null) {
      // A dangling link: judge its literal target; nothing beyond it exists.
      const literal = resolve(dirname(candidate), await readlink(candidate));
      if (!isInside(worktree, literal)) return escape;
      real = join(candidate, ...segments.slice(i + 1));
      break;
    }
    if (!isInside(worktree, target)) return escape;
    real = target;
  }
  if (!isInside(worktree, real)) return escape;
  return { ok: true, abs: real, rel: relative(worktree, real).split(sep).join('/') };
}

/**
 * Lexically normalizes a relative `/`-separated path: drops empty and `.` segments, applies
 * `..`. Returns null when `..` would climb above the root.
 */
export function normalizeSegments(path: string): string[] | null {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return out;
}

/**
 * Simple case folding as a case-insensitive file system applies it: lowercase, plus the only
 * two non-ASCII code points APFS folds onto ASCII letters, ſ (U+017F) → s and K (U+212A) → k
 * (world-spec §8.2).
 */
export function foldName(name: string): string {
  return name
    .replace(/\u017f/g, 's')
    .replace(/\u212a/g, 'k')
    .toLowerCase();
}

const DENIED_DIRS = FS_DENY_WRITE.filter((p) => p.endsWith('/**')).map((p) => ({
  name: p.slice(0, -'/**'.length),
  pattern: p,
}));
const DENIED_FILES = FS_DENY_WRITE.filter((p) => !p.endsWith('/**')).map((p) => ({
  name: p,
  pattern: p,
}));

/**
 * The write rules of the rendered policy (world-spec §2.3, §3.2, §8.2), over a normalized
 * relative path: any `.git` component (directory or pointer file) is read-only; a first
 * component folding to a denied directory, or a root file folding to a denied file, matches
 * fs_deny_write and is read-only. Every case variant is refused; the canonical lowercase
 * pattern is printed. Returns the refusal text, or null when writing is allowed.
 * @param verb write | edit
 * @param path the agent's path as given (printed in the refusal)
 * @param segments the normalized segments (lexical, and again after symlink resolution)
 */
export function writeRefusal(
  verb: FileVerb,
  path: string,
  segments: readonly string[],
): string | null {
  const folded = segments.map(foldName);
  if (folded.includes('.git')) return `${verb} ${path}: .git/ is read-only to the lane's tools`;
  const first = folded[0];
  if (first === undefined) return null;
  const dir = DENIED_DIRS.find((d) => d.name === first);
  const file = folded.length === 1 ? DENIED_FILES.find((f) => f.name === first) : undefined;
  const hit = dir ?? file;
  if (hit === undefined) return null;
  return `${verb} ${path}: matches fs_deny_write "${hit.pattern}" — read-only under this policy`;
}
