import { closeSync, constants, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';

/**
 * Acting on a confined path without a window between the check and the use (TOCTOU).
 *
 * confinePath (resolve.ts) judges a path by lstat-ing it; the operation opens it afterwards. A
 * component swapped for a symlink in between (`src` → `/etc`) would be followed by a plain
 * open. Here the resolved path is re-walked from the root one directory at a time, each opened
 * with O_DIRECTORY | O_NOFOLLOW through the previous one's descriptor (`/proc/self/fd/<n>/<name>`
 * is Linux's openat(2) for callers without it: the kernel resolves the descriptor's directory,
 * not a name), so every step stays on the directories that were checked; the last component is
 * then used through its parent's descriptor, opened with O_NOFOLLOW (or by calls that never
 * follow a last symlink: mkdir, unlink, rmdir, rename). Anything that became a symlink is a
 * ConfineRaceError, reported as an escape.
 */

/** A component of a confined path turned into a symlink (or a non-directory) after the check. */
export class ConfineRaceError extends Error {
  readonly code = 'ECONFINERACE';
  constructor(readonly component: string) {
    super(`${component} changed while it was being opened`);
    this.name = 'ConfineRaceError';
  }
}

/** The path that names `name` inside the directory open on `fd` (Linux /proc, like openat). */
export function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Opens the directory `segments` under `rootReal`, walking from the root without following any
 * symlink (see the module comment).
 * @param rootReal the root's real path (confineRoot)
 * @param segments real segments under it (confinePath's `rel`, split), every one a directory
 * @param create make missing directories on the way (mode 0777 − umask)
 * @returns a descriptor of the directory (close it)
 * @throws ConfineRaceError when a component is a symlink or not a directory; the file system
 *   error otherwise (ENOENT when a directory is missing and create is false, EACCES…)
 */
export function openDirectory(
  rootReal: string,
  segments: readonly string[],
  create: boolean,
): number {
  let fd = openSync(rootReal, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const name of segments) {
      const next = openChild(fd, name, create);
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function openChild(dir: number, name: string, create: boolean): number {
  const path = fdPath(dir, name);
  try {
    return openSync(path, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && create) {
      try {
        mkdirSync(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      return openChild(dir, name, false);
    }
    if (code === 'ELOOP') throw new ConfineRaceError(name);
    if (code === 'ENOTDIR' && isSymlink(path)) throw new ConfineRaceError(name);
    throw err;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A confined name held through its parent directory's descriptor (openParent). */
export interface HeldName {
  /** `/proc/self/fd/<parent>/<name>`: use it only with calls that do not follow a last symlink */
  path: string;
  /** the last component */
  name: string;
  /** closes the parent's descriptor */
  close(): void;
}

/**
 * Holds the parent of a confined path open (openDirectory) and names its last component through
 * it, for an open with O_NOFOLLOW or a call that never follows a last symlink.
 * @param rootReal the root's real path
 * @param segments the confined path's real segments (at least one)
 * @param create make missing parent directories
 * @throws as openDirectory; Error EINVAL when segments is empty (the root itself has no parent)
 */
export function openParent(
  rootReal: string,
  segments: readonly string[],
  create: boolean,
): HeldName {
  if (segments.length === 0) throw Object.assign(new Error('invalid argument'), { code: 'EINVAL' });
  const name = segments[segments.length - 1]!;
  const fd = openDirectory(rootReal, segments.slice(0, -1), create);
  return { path: fdPath(fd, name), name, close: () => closeSync(fd) };
}

/**
 * Opens a confined file through its parent (openParent) with O_NOFOLLOW added to `flags` (no
 * segments: the root itself).
 * @returns the file's descriptor (close it)
 * @throws ConfineRaceError when the file or a parent became a symlink; the file system error
 */
export function openConfinedFile(
  rootReal: string,
  segments: readonly string[],
  flags: number,
  mode = 0o666,
): number {
  // The root itself is a real path (confineRoot): nothing to walk, and it is a directory.
  if (segments.length === 0) return openSync(rootReal, flags, mode);
  const held = openParent(rootReal, segments, false);
  try {
    return openSync(held.path, flags | constants.O_NOFOLLOW, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new ConfineRaceError(held.name);
    throw err;
  } finally {
    held.close();
  }
}

/**
 * What a probe of a confined path sees (fileExists, isDir, isFile): the lstat of its last
 * component through its parent's descriptor (openParent), so a component swapped for a
 * symlink after the check is not followed out.
 * @param rootReal the root's real path
 * @param segments the confined path's real segments (none: the root itself)
 * @returns the name's Stats, or null when it cannot be seen (missing, a file on the way, no
 *   permission: what existsSync answers false for)
 * @throws ConfineRaceError when a parent became a symlink
 */
export function probeConfined(rootReal: string, segments: readonly string[]): Stats | null {
  try {
    if (segments.length === 0) return lstatSync(rootReal);
    const held = openParent(rootReal, segments, false);
    try {
      return lstatSync(held.path);
    } finally {
      held.close();
    }
  } catch (err) {
    if (err instanceof ConfineRaceError) throw err;
    return null;
  }
}
