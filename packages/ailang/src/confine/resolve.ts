import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, join, posix } from 'node:path';
// The limits subpath only: this module runs in every AILANG worker thread, which must not load
// the contracts' schemas (hundreds of ms per worker).
import { CONFINE_SYMLINK_HOPS_MAX } from '@world/contracts/limits';
import { hasExtraLinks, normalizeSegments, writeRule, type Access, type Refusal } from './rules.js';

/** A confinement root: the name the caller uses (printed in refusals) and its real path. */
export interface ConfineRoot {
  /** the root as configured (an episode's worktree, a policy's fs_sandbox) */
  given: string;
  /** its real path: every resolution starts here */
  real: string;
}

/** A path confined to its root, or why it is refused. */
export type Confined =
  | {
      ok: true;
      /** absolute path with every symlink resolved inside the root (what the operation touches) */
      abs: string;
      /** that path relative to the root, `/`-separated ('' for the root itself) */
      rel: string;
    }
  | { ok: false; refusal: Refusal };

/**
 * Names a root for confinePath.
 * @throws the file system error when the root does not exist (ENOENT…)
 */
export function confineRoot(root: string): ConfineRoot {
  return { given: root, real: realpathSync(root) };
}

/**
 * World's one confinement rule (world-spec §2.3, §8.2 "Refused paths", "`.git` read-only",
 * "Deny list"; ailang.md §1.5 runtime confinement): resolves a caller's path inside a root the
 * way the kernel would, one component at a time, and refuses it when any step leaves the root.
 * - A relative path is normalized lexically first (`a/../b` is `b`; `..` above the root
 *   escapes); an absolute path is accepted only when it lies lexically inside the root (under
 *   its configured or its real name) and is then taken relative to it.
 * - Every existing component is lstat'ed; a symlink is replaced by its target (relative to its
 *   directory; an absolute target only when it lies inside the root) and walking goes on, so
 *   `..` inside a link is physical and a chain of links is followed to its end. A target that
 *   leaves the root escapes; more than CONFINE_SYMLINK_HOPS_MAX links is a loop. Components
 *   that do not exist are kept as named (a write creates them), so a dangling link is judged by
 *   where it points: inside, it names the file a write creates; outside, it escapes.
 * - The file reached, when it is a regular file with more than one link, is refused like an
 *   escape: a hard link is a second name of a file that may lie outside the root.
 * - A write is refused under a `.git` component at any depth and on an fs_deny_write match,
 *   judged on the path as given and again after resolution (writeRule).
 * Synchronous (a few lstat/readlink calls per path), so the AILANG interpreter and the broker's
 * handlers share it. The check and the later open are separate steps; the episode lease
 * serializes the only writers of a worktree (the episode's own tools), and the readers check
 * the link count again on the open descriptor.
 * @param root the root (confineRoot)
 * @param path the caller's path
 * @param access read, or write (create, change, move, remove)
 * @param denyWrite the policy's fs_deny_write patterns
 * @throws the file system error of an lstat/readlink other than ENOENT, ENOTDIR, ENAMETOOLONG
 */
export function confinePath(
  root: ConfineRoot,
  path: string,
  access: Access,
  denyWrite: readonly string[],
): Confined {
  const refuse = (refusal: Refusal): Confined => ({ ok: false, refusal });
  if (path === '' || path.includes('\0')) return refuse({ kind: 'invalid' });
  const lexical = isAbsolute(path)
    ? insideOf(root, posix.normalize(path))
    : normalizeSegments(path);
  if (lexical === null) return refuse({ kind: 'escape' });
  if (access === 'write') {
    const early = writeRule(lexical, denyWrite);
    if (early !== null) return refuse(early);
  }
  const walked = walk(root, lexical);
  if ('kind' in walked) return refuse(walked);
  const { segments, last } = walked;
  if (last !== null && hasExtraLinks(last)) return refuse({ kind: 'links', links: last.nlink });
  if (access === 'write') {
    const resolved = writeRule(segments, denyWrite);
    if (resolved !== null) return refuse(resolved);
  }
  return {
    ok: true,
    abs: segments.length === 0 ? root.real : join(root.real, ...segments),
    rel: segments.join('/'),
  };
}

/**
 * Confines the name an operation acts on without following it — removeFile, renameFile's
 * source and destination (unlink(2), rmdir(2) and rename(2) never follow a last symlink): the
 * path must pass confinePath as a write (so a link whose target leaves the root escapes for
 * every operation, world-spec §8.2 "in-worktree symlink pointing out", and neither the name nor
 * its target may lie under `.git` or match fs_deny_write); the name itself is then its parent's
 * real path plus its last component as given. Removing or renaming a symlink inside the root
 * acts on the link, never on its target; a regular file with more than one link is refused.
 * @returns the name's real segments (`rel`/`abs` of the link itself when it is one)
 * @throws as confinePath
 */
export function confineName(
  root: ConfineRoot,
  path: string,
  denyWrite: readonly string[],
): Confined {
  const full = confinePath(root, path, 'write', denyWrite);
  if (!full.ok) return full;
  const lexical = isAbsolute(path)
    ? insideOf(root, posix.normalize(path))!
    : normalizeSegments(path)!;
  // The root itself (`.`) has no parent to act in: the operation reports EINVAL.
  if (lexical.length === 0) return full;
  const parent = walk(root, lexical.slice(0, -1));
  if ('kind' in parent) return { ok: false, refusal: parent };
  const segments = [...parent.segments, lexical[lexical.length - 1]!];
  const rule = writeRule(segments, denyWrite);
  if (rule !== null) return { ok: false, refusal: rule };
  const self = lstatOrNull(join(root.real, ...segments));
  if (self !== null && hasExtraLinks(self))
    return { ok: false, refusal: { kind: 'links', links: self.nlink } };
  return { ok: true, abs: join(root.real, ...segments), rel: segments.join('/') };
}

/** The segments of an absolute normalized path relative to the root, or null outside it. */
function insideOf(root: ConfineRoot, abs: string): string[] | null {
  for (const base of [root.real, posix.normalize(root.given)]) {
    const b = base.endsWith('/') && base !== '/' ? base.slice(0, -1) : base;
    if (abs === b || abs === `${b}/`) return [];
    if (abs.startsWith(`${b}/`))
      return abs
        .slice(b.length + 1)
        .split('/')
        .filter((s) => s !== '');
  }
  return null;
}

/**
 * Walks normalized segments from the real root, resolving symlinks (see confinePath).
 * @returns the real segments under the root and the lstat of the last one (null when it does
 *   not exist or is a directory reached by `..`), or the escape / loop refusal
 */
function walk(
  root: ConfineRoot,
  lexical: readonly string[],
): { segments: string[]; last: Stats | null } | Refusal {
  const stack: string[] = [];
  let queue = [...lexical];
  let hops = 0;
  let missing = false;
  let last: Stats | null = null;
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      // Only a link target can hold `..` here: it climbs from the link's real directory.
      if (stack.length === 0) return { kind: 'escape' };
      stack.pop();
      last = null;
      continue;
    }
    if (missing) {
      stack.push(name);
      continue;
    }
    const candidate = join(root.real, ...stack, name);
    const info = lstatOrNull(candidate);
    if (info === null) {
      // Nothing by that name: the operation reports it, or a write creates it here.
      missing = true;
      last = null;
      stack.push(name);
      continue;
    }
    if (!info.isSymbolicLink()) {
      stack.push(name);
      last = info;
      continue;
    }
    if (++hops > CONFINE_SYMLINK_HOPS_MAX) return { kind: 'loop' };
    const target = readlinkSync(candidate);
    if (isAbsolute(target)) {
      const inside = insideOf(root, posix.normalize(target));
      if (inside === null) return { kind: 'escape' };
      stack.length = 0;
      queue = [...inside, ...queue];
    } else {
      queue = [...target.split('/'), ...queue];
    }
  }
  return { segments: stack, last };
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENAMETOOLONG: nothing by that name can exist; the operation reports it with its text.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return null;
    throw err;
  }
}
