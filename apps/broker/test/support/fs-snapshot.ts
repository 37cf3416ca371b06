import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every entry under a directory with its type and content (files), target (symlinks) and
 * permission bits, sorted: two equal snapshots mean the file system did not change.
 */
export async function treeSnapshot(root: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string, rel: string): Promise<void> {
    for (const name of (await readdir(dir)).sort()) {
      const abs = join(dir, name);
      const path = rel === '' ? name : `${rel}/${name}`;
      const info = await lstat(abs);
      const mode = (info.mode & 0o7777).toString(8);
      if (info.isSymbolicLink()) out.push(`link ${path} -> ${await readlink(abs)}`);
      else if (info.isDirectory()) {
        out.push(`dir ${path} ${mode}`);
        await walk(abs, path);
      } else
        out.push(
          `file ${path} ${mode} links=${info.nlink} ${JSON.stringify(await readFile(abs, 'utf8'))}`,
        );
    }
  }
  await walk(root, '');
  return out;
}
