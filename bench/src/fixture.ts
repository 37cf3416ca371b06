/**
 * The file every call reads (issue 7: a 2 KiB file), written once per run into a source
 * directory that World's episodes are copied from and the baseline serves.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FILE_BYTES, FILE_NAME } from './config.js';

/** Deterministic printable text of exactly `bytes` bytes (ASCII lines of 64). */
export function fileText(bytes: number = FILE_BYTES): string {
  const LINE = 64;
  let text = '';
  for (let i = 0; text.length < bytes; i++) {
    text +=
      `line ${String(i).padStart(4, '0')} of the World bench fixture `.padEnd(LINE - 1, '.') + '\n';
  }
  return text.slice(0, bytes);
}

/** Writes the fixture directory (holding FILE_NAME) under `root` and returns its path. */
export async function writeFixture(root: string): Promise<string> {
  const dir = join(root, 'fixture');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, FILE_NAME), fileText());
  return dir;
}
