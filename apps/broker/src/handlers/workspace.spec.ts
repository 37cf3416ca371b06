import { execFileSync } from 'node:child_process';
import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeSnapshot } from '../../test/support/fs-snapshot.js';
import { renderPolicy } from '../policy/render-policy.js';
import type { EffectHandler, HandlerContext } from './registry.js';
import { occurrences, workspaceRead, workspaceWrite } from './workspace.js';

let root: string;
let ep: string;
let ctx: HandlerContext;
let pointerCtx: HandlerContext;

function contextFor(worktree: string): HandlerContext {
  return {
    episodeId: 'ep',
    worktree,
    scope: 'worktree',
    policy: { ...renderPolicy({ worktree, timeoutMs: 8000 }), path: '/nowhere/ep.toml' },
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
  };
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'broker-confine-')));
  ep = join(root, 'ep');
  await mkdir(join(ep, '.git'), { recursive: true });
  await writeFile(join(ep, '.git', 'config'), '[core]\n');
  await mkdir(join(ep, 'sub', '.git'), { recursive: true });
  await writeFile(join(ep, 'sub', '.git', 'config'), '[core]\n');
  await writeFile(join(ep, 'hello.ail'), 'module hello\n');
  await writeFile(join(ep, 'three.txt'), 'x x x\n');
  await mkdir(join(root, 'ep2'));
  await writeFile(join(root, 'ep2', 'x'), 'sibling secret\n');
  await mkdir(join(root, 'outside'));
  await writeFile(join(root, 'outside', 'secret.txt'), 'outside secret\n');
  await symlink(join(root, 'outside'), join(ep, 'out'));
  await symlink(join(root, 'outside', 'secret.txt'), join(ep, 'outfile'));
  await symlink('../ep2', join(ep, 'sib'));
  await symlink('.git', join(ep, 'g'));
  await symlink(join(root, 'outside', 'missing.txt'), join(ep, 'dangling'));
  await link(join(root, 'outside', 'secret.txt'), join(ep, 'hard'));
  await mkdir(join(root, 'ep3'));
  await writeFile(join(root, 'ep3', '.git'), 'gitdir: /somewhere/.git/worktrees/ep3\n');
  ctx = contextFor(ep);
  pointerCtx = contextFor(join(root, 'ep3'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const escapes = (verb: string, p: string) => `${verb} ${p}: path "${p}" escapes sandbox "${ep}"`;

/**
 * The handlers apply World's one confinement rule (its table is @world/ailang's
 * confine/confine.spec.ts); these rows pin that each verb reports each kind of refusal in the
 * tool's words and changes nothing.
 */
describe('workspace handlers confine every path to the worktree (world-spec §3.1–§3.3, §4.4 (C), §8.2)', () => {
  const rows: Array<
    [string, EffectHandler, Record<string, unknown>, () => string, 'ep' | 'pointer']
  > = [
    [
      'an absolute path (§3.1)',
      workspaceRead,
      { op: 'read', path: '/etc/hosts' },
      () => escapes('read', '/etc/hosts'),
      'ep',
    ],
    [
      'a sibling episode via a symlink (§2.1)',
      workspaceRead,
      { op: 'read', path: 'sib/x' },
      () => escapes('read', 'sib/x'),
      'ep',
    ],
    [
      'a dangling symlink pointing outside',
      workspaceRead,
      { op: 'read', path: 'dangling' },
      () => escapes('read', 'dangling'),
      'ep',
    ],
    [
      'a write through a symlink pointing outside',
      workspaceWrite,
      { op: 'write', path: 'out/new.txt', content: 'x' },
      () => escapes('write', 'out/new.txt'),
      'ep',
    ],
    [
      'an edit of an absolute path',
      workspaceWrite,
      { op: 'edit', path: '/etc/hosts', old_text: 'a', new_text: 'b' },
      () => escapes('edit', '/etc/hosts'),
      'ep',
    ],
    [
      'a missing file (§3.1)',
      workspaceRead,
      { op: 'read', path: 'nope.ail' },
      () => 'read nope.ail: openat nope.ail: no such file or directory',
      'ep',
    ],
    [
      'a write to .git/config (§3.2)',
      workspaceWrite,
      { op: 'write', path: '.git/config', content: 'x' },
      () => "write .git/config: .git/ is read-only to the lane's tools",
      'ep',
    ],
    [
      'an edit inside .git',
      workspaceWrite,
      { op: 'edit', path: '.git/config', old_text: 'core', new_text: 'x' },
      () => "edit .git/config: .git/ is read-only to the lane's tools",
      'ep',
    ],
    [
      'a write to the .git pointer file (§8.2)',
      workspaceWrite,
      { op: 'write', path: '.git', content: 'gitdir: /tmp\n' },
      () => "write .git: .git/ is read-only to the lane's tools",
      'pointer',
    ],
    [
      'a write to .ailang/x.ail (§3.2)',
      workspaceWrite,
      { op: 'write', path: '.ailang/x.ail', content: 'x' },
      () => 'write .ailang/x.ail: matches fs_deny_write ".ailang/**" — read-only under this policy',
      'ep',
    ],
    [
      'a write to .GitHub/x (case variant, §8.2)',
      workspaceWrite,
      { op: 'write', path: '.GitHub/x', content: 'x' },
      () => 'write .GitHub/x: matches fs_deny_write ".github/**" — read-only under this policy',
      'ep',
    ],
    [
      'an edit with 3 occurrences (§3.3)',
      workspaceWrite,
      { op: 'edit', path: 'three.txt', old_text: 'x', new_text: 'y' },
      () => 'edit three.txt: old_text occurs 3 times; include more context so it is unique',
      'ep',
    ],
    [
      'an edit whose old_text is absent (§3.3, em-dash U+2014)',
      workspaceWrite,
      { op: 'edit', path: 'hello.ail', old_text: 'nothing like this', new_text: 'y' },
      () => 'edit hello.ail: old_text not found \u2014 the file may have changed; read it again',
      'ep',
    ],
    [
      'an edit of a missing file',
      workspaceWrite,
      { op: 'edit', path: 'nope.ail', old_text: 'a', new_text: 'b' },
      () => 'edit nope.ail: openat nope.ail: no such file or directory',
      'ep',
    ],
    [
      'a write to a nested repository config (README "Confinement")',
      workspaceWrite,
      { op: 'write', path: 'sub/.git/config', content: '[core]\n\thooksPath = /outside/hooks\n' },
      () => "write sub/.git/config: .git/ is read-only to the lane's tools",
      'ep',
    ],
    [
      'a read of a hard link to a file outside (§8.2)',
      workspaceRead,
      { op: 'read', path: 'hard' },
      () => `read hard: path "hard" escapes sandbox "${ep}": it has 2 hard links`,
      'ep',
    ],
    [
      'an edit of a hard link to a file outside',
      workspaceWrite,
      { op: 'edit', path: 'hard', old_text: 'outside', new_text: 'x' },
      () => `edit hard: path "hard" escapes sandbox "${ep}": it has 2 hard links`,
      'ep',
    ],
    [
      'a write over a hard link to a file outside',
      workspaceWrite,
      { op: 'write', path: 'hard', content: 'x' },
      () => `write hard: path "hard" escapes sandbox "${ep}": it has 2 hard links`,
      'ep',
    ],
  ];

  it.each(rows)(
    'refuses %s with the exact string and leaves the file system unchanged',
    async (_name, handler, payload, expected, which) => {
      const before = await treeSnapshot(root);
      const out = await handler.run(payload, which === 'pointer' ? pointerCtx : ctx);
      expect(out).toEqual({ ok: false, refused: expected() });
      expect(await treeSnapshot(root)).toEqual(before);
    },
  );

  it('reads a file inside the worktree', async () => {
    await expect(workspaceRead.run({ op: 'read', path: 'hello.ail' }, ctx)).resolves.toEqual({
      ok: true,
      content: 'module hello\n',
    });
  });

  it('reads .git (only writes are refused there)', async () => {
    await expect(workspaceRead.run({ op: 'read', path: '.git/config' }, ctx)).resolves.toEqual({
      ok: true,
      content: '[core]\n',
    });
  });

  it('writes atomically, creating parent directories and leaving no temporary file', async () => {
    await expect(
      workspaceWrite.run({ op: 'write', path: 'notes/todo.txt', content: 'first line\n' }, ctx),
    ).resolves.toEqual({ ok: true });
    expect(await readFile(join(ep, 'notes', 'todo.txt'), 'utf8')).toBe('first line\n');
    expect(await readdir(join(ep, 'notes'))).toEqual(['todo.txt']);
    await expect(
      workspaceWrite.run({ op: 'write', path: 'notes/todo.txt', content: 'second\n' }, ctx),
    ).resolves.toEqual({ ok: true });
    expect(await readFile(join(ep, 'notes', 'todo.txt'), 'utf8')).toBe('second\n');
    expect(await readdir(join(ep, 'notes'))).toEqual(['todo.txt']);
  });

  it('edits the one occurrence atomically, leaving no temporary file', async () => {
    await writeFile(join(ep, 'edit.txt'), 'alpha beta gamma\n');
    const namesBefore = (await readdir(ep)).sort();
    await expect(
      workspaceWrite.run({ op: 'edit', path: 'edit.txt', old_text: 'beta', new_text: 'BETA' }, ctx),
    ).resolves.toEqual({ ok: true });
    expect(await readFile(join(ep, 'edit.txt'), 'utf8')).toBe('alpha BETA gamma\n');
    expect((await readdir(ep)).sort()).toEqual(namesBefore);
  });

  it('refuses a write onto a directory and removes its temporary file', async () => {
    await mkdir(join(ep, 'adir'));
    const before = await treeSnapshot(root);
    await expect(
      workspaceWrite.run({ op: 'write', path: 'adir', content: 'x' }, ctx),
    ).resolves.toEqual({
      ok: false,
      refused: 'write adir: open adir: is a directory',
    });
    expect(await treeSnapshot(root)).toEqual(before);
  });

  it('refuses to read or edit a FIFO at once, without blocking on it (no writer ever comes), and a socket', async () => {
    // Its own worktree outside `root`: the snapshots above would block reading a FIFO.
    const special = await realpath(await mkdtemp(join(tmpdir(), 'broker-fifo-')));
    try {
      execFileSync('mkfifo', [join(special, 'pipe')]);
      const fifoCtx = contextFor(special);
      await expect(workspaceRead.run({ op: 'read', path: 'pipe' }, fifoCtx)).resolves.toEqual({
        ok: false,
        refused: 'read pipe: pipe is not a regular file',
      });
      await expect(
        workspaceWrite.run({ op: 'edit', path: 'pipe', old_text: 'a', new_text: 'b' }, fifoCtx),
      ).resolves.toEqual({ ok: false, refused: 'edit pipe: pipe is not a regular file' });
      expect((await lstat(join(special, 'pipe'))).isFIFO()).toBe(true);
      const server = createServer();
      await new Promise<void>((ok) => server.listen(join(special, 'sock'), ok));
      try {
        await expect(workspaceRead.run({ op: 'read', path: 'sock' }, fifoCtx)).resolves.toEqual({
          ok: false,
          refused: 'read sock: sock is not a regular file',
        });
      } finally {
        await new Promise<void>((ok) => server.close(() => ok()));
      }
    } finally {
      await rm(special, { recursive: true, force: true });
    }
  });

  it('keeps the Go texts for a directory: read stats it, edit fails opening it', async () => {
    await mkdir(join(ep, 'rdir'), { recursive: true });
    await expect(workspaceRead.run({ op: 'read', path: 'rdir' }, ctx)).resolves.toEqual({
      ok: false,
      refused: 'read rdir: read rdir: is a directory',
    });
    await expect(
      workspaceWrite.run({ op: 'edit', path: 'rdir', old_text: 'a', new_text: 'b' }, ctx),
    ).resolves.toEqual({ ok: false, refused: 'edit rdir: openat rdir: is a directory' });
  });

  it('refuses a name longer than the file system allows with its errno text', async () => {
    const long = 'n'.repeat(300);
    await expect(workspaceRead.run({ op: 'read', path: long }, ctx)).resolves.toEqual({
      ok: false,
      refused: `read ${long}: openat ${long}: file name too long`,
    });
  });

  it('fails (throws) on a payload without a string path', async () => {
    await expect(workspaceRead.run({ op: 'read', path: 7 }, ctx)).rejects.toThrow(
      'payload field "path" must be a string',
    );
  });
});

describe('occurrences (world-spec §3.3)', () => {
  it.each([
    ['x x x', 'x', 3],
    ['aaaa', 'aa', 2],
    ['abc', 'd', 0],
    ['ab', '', 3],
  ])('counts non-overlapping occurrences in %j of %j as %d', (text, needle, count) => {
    expect(occurrences(text, needle)).toBe(count);
  });
});
