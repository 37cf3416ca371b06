import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { hasExtraLinks } from '../confine/rules.js';

/** The errno-like code of a path that is not a regular file (a FIFO, a socket, a device). */
export const NOT_REGULAR = 'ENOTREG';

/** The errno-like code of a regular file with more than one link (a possible hard link out). */
export const HARD_LINKED = 'EHARDLINKED';

/**
 * Reads a file as UTF-8 only when it is a regular file with one link. The file is opened
 * non-blocking and the checks run on the open descriptor (fstat), so a FIFO without a writer, a
 * socket or a device can neither block the reading thread (a blocked worker cannot be
 * terminated, and a blocked libuv thread is lost to every later call) nor be read, and a hard
 * link made after the path was confined is not read either (world-spec §8.2).
 * @param real the resolved path (a Sandbox's resolve)
 * @param beforeRead called with the size in bytes before any byte is read (a transfer budget)
 * @param openFile opens the file with the given flags (default: open(real); a sandbox passes a
 *   race-free open through its parent's descriptor, confine/open.ts)
 * @returns the file's text
 * @throws an Error with code EISDIR for a directory, NOT_REGULAR (`not a regular file`) for any
 *   other non-regular file, HARD_LINKED (`it has N hard links`, with `links`) for a file with
 *   more than one link, or the file system's own error (ENOENT, EACCES…)
 */
export function readRegularText(
  real: string,
  beforeRead?: (size: number) => void,
  openFile: (flags: number) => number = (flags) => openSync(real, flags),
): string {
  let fd: number;
  try {
    fd = openFile(constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    // A unix socket cannot be opened at all (ENXIO): it is not a regular file either.
    if ((e as NodeJS.ErrnoException).code === 'ENXIO') {
      throw Object.assign(new Error('not a regular file'), { code: NOT_REGULAR });
    }
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: NOT_REGULAR });
    if (hasExtraLinks(st)) {
      throw Object.assign(new Error(`it has ${st.nlink} hard links`), {
        code: HARD_LINKED,
        links: st.nlink,
      });
    }
    beforeRead?.(st.size);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
