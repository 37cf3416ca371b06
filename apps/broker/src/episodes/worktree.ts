import { execFile } from 'node:child_process';
import { copyFile, lstat, mkdir, readdir, readlink, realpath, symlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BadRequestError, EPISODE_SOURCE_MS, type ParsedRequestOf } from '@world/contracts';
import { isInside } from '@world/ailang';

const run = promisify(execFile);

/** Where an episode's files come from (broker.episode.create). */
export type EpisodeSource = ParsedRequestOf<'broker.episode.create'>['source'];

/**
 * Why a path is not a usable worktree, or null when it is one: it must be a real directory,
 * not a symlink, whose real path is itself (world-spec §2.1: no redirect to another directory
 * or a sibling episode).
 */
export async function worktreeProblem(worktree: string): Promise<string | null> {
  const info = await lstat(worktree).catch(() => null);
  if (info === null) return 'it does not exist';
  if (info.isSymbolicLink()) return 'it is a symlink';
  if (!info.isDirectory()) return 'it is not a directory';
  const real = await realpath(worktree).catch(() => null);
  if (real !== worktree) return `it resolves to ${real ?? 'nothing'}`;
  return null;
}

/**
 * Creates an episode worktree from its source (world-spec §2.1, §7.4 `session new`):
 * - empty: a new directory (an existing real directory is adopted: the operator made it);
 * - copy: DIR's regular files and directories; a symlink is copied only when it is relative
 *   and stays inside DIR, every other symlink (absolute, or leading out) is skipped, so the
 *   copy never reaches outside;
 * - git: `git worktree add --detach <worktree> [ref]` in REPO. This edition always uses a
 *   worktree (never a clone): REPO must be a git repository, otherwise the request is refused.
 *   The worktree's `.git` is then a pointer file, read-only to the tools.
 * @throws BadRequestError when the source is unusable or the worktree already exists (copy, git)
 */
export async function materializeWorktree(worktree: string, source: EpisodeSource): Promise<void> {
  const exists = (await lstat(worktree).catch(() => null)) !== null;
  if (source.kind === 'empty') {
    if (!exists) await mkdir(worktree);
    return;
  }
  if (exists)
    throw new BadRequestError(
      `worktree "${worktree}" already exists; remove it or use source "empty"`,
    );
  if (source.kind === 'copy') {
    const from = await realpath(resolve(source.dir)).catch(() => null);
    const info = from === null ? null : await lstat(from);
    if (from === null || info === null || !info.isDirectory()) {
      throw new BadRequestError(`copy source "${source.dir}" is not a directory`);
    }
    if (isInside(from, worktree)) {
      // The copy would land inside its own source and copy itself without end.
      throw new BadRequestError(`copy source "${source.dir}" contains the worktree`);
    }
    await mkdir(worktree);
    await copyTree(from, from, worktree);
    return;
  }
  const repo = resolve(source.repo);
  if (source.ref !== undefined && (source.ref.startsWith('-') || source.ref.includes('\0'))) {
    throw new BadRequestError(`git ref "${source.ref}" must not start with "-"`);
  }
  try {
    await git(repo, ['rev-parse', '--git-dir']);
  } catch {
    throw new BadRequestError(`git source "${source.repo}" is not a git repository`);
  }
  await mkdir(dirname(worktree), { recursive: true });
  try {
    await git(repo, [
      'worktree',
      'add',
      '--detach',
      '--',
      worktree,
      ...(source.ref === undefined ? [] : [source.ref]),
    ]);
  } catch (err) {
    const stderr =
      String((err as { stderr?: string }).stderr ?? '')
        .trim()
        .split('\n')[0] ?? '';
    throw new BadRequestError(`git worktree add failed: ${stderr || (err as Error).message}`);
  }
}

async function git(repo: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', repo, ...args], {
    timeout: EPISODE_SOURCE_MS,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
  });
  return stdout;
}

async function copyTree(root: string, from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target);
      await copyTree(root, source, target);
    } else if (entry.isFile()) {
      await copyFile(source, target);
    } else if (entry.isSymbolicLink()) {
      const link = await readlink(source);
      if (!link.startsWith('/') && isInside(root, resolve(from, link))) await symlink(link, target);
    }
  }
}
