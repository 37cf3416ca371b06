import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sandbox, SandboxViolation } from './sandbox.js';

describe('Sandbox (ailang.md §1.5 runtime confinement; world-spec §8.2)', () => {
  let root: string;
  let outside: string;
  let sb: Sandbox;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ailang-sb-'));
    outside = mkdtempSync(join(tmpdir(), 'ailang-out-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ail'), 'x');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out'));
    symlinkSync(join(root, 'src', 'a.ail'), join(root, 'link-in'));
    symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
    symlinkSync(outside, join(root, 'dir-out'));
    sb = new Sandbox({
      root,
      denyWrite: ['.github/**', '.gitmodules'],
      transferMax: 10,
      protectGit: true,
    });
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const refusal = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (e instanceof SandboxViolation) return e.message;
      throw e;
    }
    return 'allowed';
  };

  it.each([
    [
      'an absolute path outside',
      '/etc/hosts',
      'read',
      'readFile: path "/etc/hosts" escapes sandbox "<root>"',
    ],
    ['a .. escape', '../x', 'read', 'readFile: path "../x" escapes sandbox "<root>"'],
    [
      'a symlink pointing out (world-spec §8.2)',
      'link-out',
      'read',
      'readFile: path "link-out" escapes sandbox "<root>"',
    ],
    [
      'a path through a directory symlink pointing out',
      'dir-out/secret.txt',
      'read',
      'readFile: path "dir-out/secret.txt" escapes sandbox "<root>"',
    ],
    [
      'a write through a dangling symlink',
      'dangling',
      'write',
      'readFile: path "dangling" escapes sandbox "<root>"',
    ],
    [
      'a write under .git (restricted mode)',
      '.git/config',
      'write',
      'readFile: E_FS_PROTECTED: path ".git/config" is under .git, which is read-only in restricted mode',
    ],
    [
      'a write under a case variant of .git',
      '.GIT/hooks/pre-commit',
      'write',
      'readFile: E_FS_PROTECTED: path ".GIT/hooks/pre-commit" is under .git, which is read-only in restricted mode',
    ],
    [
      'a deny-listed write',
      '.GitHub/x.yml',
      'write',
      'readFile: E_FS_PROTECTED: path ".GitHub/x.yml" matches fs_deny_write ".github/**" — read-only under this policy',
    ],
    ['a read of a deny-listed path is allowed', '.github/x.yml', 'read', 'allowed'],
    ['a relative path inside', 'src/a.ail', 'read', 'allowed'],
    ['an absolute path inside', '<root>/src/a.ail', 'read', 'allowed'],
    ['a symlink staying inside', 'link-in', 'read', 'allowed'],
    ['a .. that stays inside', 'src/../src/a.ail', 'read', 'allowed'],
    ['a new file inside', 'src/new.txt', 'write', 'allowed'],
  ])('%s', (_name, path, mode, expected) => {
    const message = refusal(() =>
      sb.resolve('readFile', path.replace('<root>', root), mode as 'read' | 'write'),
    );
    expect(message).toBe(expected.replace('<root>', root));
  });

  it('caps the bytes moved at max_fs_transfer_bytes', () => {
    const s = new Sandbox({ root, denyWrite: [], transferMax: 10, protectGit: true });
    s.transfer('readFile', 6);
    expect(refusal(() => s.transfer('writeFile', 5))).toBe(
      'writeFile: max_fs_transfer_bytes (10) exceeded',
    );
  });
});
