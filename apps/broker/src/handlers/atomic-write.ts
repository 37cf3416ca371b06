import { randomBytes } from 'node:crypto';
import { lstat, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ATOMIC_WRITE_SUFFIX_BYTES } from '@world/contracts';

/** New files get rw for everyone before the umask, as `open(2)` callers usually ask. */
const NEW_FILE_MODE = 0o666;

/**
 * Replaces a file atomically: the bytes go to a temporary file in the same directory, are
 * fsynced, renamed over the target, and the directory is fsynced, so a crash leaves either the
 * old file or the new one, never a half-written one (world-internals §8.2). An existing regular
 * file's permission bits are kept unless `mode` is given (a symlink by that name is never
 * followed). The temporary file is removed when any step
 * fails.
 * @param abs absolute target path (its directory must exist)
 * @param mode permission bits of the result (default: the existing file's, else 0666 − umask)
 * @throws the file system error (EISDIR when the target is a directory, …)
 */
export async function writeFileAtomic(abs: string, data: Uint8Array, mode?: number): Promise<void> {
  const dir = dirname(abs);
  const tmp = join(
    dir,
    `.${basename(abs)}.${randomBytes(ATOMIC_WRITE_SUFFIX_BYTES).toString('hex')}.tmp`,
  );
  // lstat: a name swapped for a symlink is replaced by the rename, and its target's bits unread.
  const existing = await lstat(abs).catch(() => null);
  const bits =
    mode ??
    (existing !== null && existing.isFile() ? existing.mode & PERMISSION_BITS : NEW_FILE_MODE);
  try {
    const handle = await open(tmp, 'wx', bits);
    try {
      // open(2) applies the umask; an explicit mode (0600 policy files) must hold exactly.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, abs);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

const PERMISSION_BITS = 0o7777;
