import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IoFailure, Sandbox, SandboxViolation } from './sandbox.js';

/**
 * The sandbox applies World's one confinement rule (its table is confine/confine.spec.ts) and
 * reports it in the program's words: refusals are SandboxViolation (fatal even for `*Result`
 * builtins), malformed paths IoFailure (world-spec §8.2; ailang.md §1.5).
 */
describe('Sandbox (ailang.md §1.5 runtime confinement; world-spec §8.2)', () => {
  let root: string;
  let outside: string;

  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'ailang-sb-')));
    outside = mkdtempSync(join(tmpdir(), 'ailang-out-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ail'), 'x');
    linkSync(join(outside, 'secret.txt'), join(root, 'hard'));
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const outcome = (sb: Sandbox, path: string, mode: 'read' | 'write'): string => {
    try {
      return `allowed ${sb.resolve('writeFile', path, mode)}`;
    } catch (e) {
      if (e instanceof SandboxViolation) return `violation ${e.message}`;
      if (e instanceof IoFailure) return `io ${e.message}`;
      throw e;
    }
  };
  const sandbox = (securityMode: 'restricted' | 'trusted_host') =>
    new Sandbox({ root, denyWrite: ['.github/**'], transferMax: 10, securityMode });

  it.each<[string, string, 'read' | 'write', 'restricted' | 'trusted_host', string]>([
    [
      'an escape',
      '../x',
      'read',
      'restricted',
      'violation writeFile: path "../x" escapes sandbox "<root>"',
    ],
    [
      'a hard link',
      'hard',
      'read',
      'restricted',
      'violation writeFile: path "hard" escapes sandbox "<root>": it has 2 hard links',
    ],
    [
      'a nested .git in restricted mode',
      'sub/.git/config',
      'write',
      'restricted',
      'violation writeFile: E_FS_PROTECTED: path "sub/.git/config" is under .git, which is read-only in restricted mode',
    ],
    [
      'a nested .git in trusted_host mode (the Env variant)',
      'sub/.git/config',
      'write',
      'trusted_host',
      'violation writeFile: E_FS_PROTECTED: path "sub/.git/config" is under .git, which is read-only in every security mode',
    ],
    [
      'a deny-listed write',
      '.GitHub/x.yml',
      'write',
      'restricted',
      'violation writeFile: E_FS_PROTECTED: path ".GitHub/x.yml" matches fs_deny_write ".github/**" — read-only under this policy',
    ],
    ['an empty path', '', 'read', 'restricted', 'io writeFile: invalid path ""'],
    ['a path inside', 'src/a.ail', 'read', 'restricted', 'allowed <root>/src/a.ail'],
    [
      'an absolute path inside',
      '<root>/src/new.txt',
      'write',
      'restricted',
      'allowed <root>/src/new.txt',
    ],
  ])('%s', (_name, path, mode, securityMode, expected) => {
    const got = outcome(sandbox(securityMode), path.replace('<root>', root), mode);
    expect(got).toBe(expected.replaceAll('<root>', root));
  });

  it('caps the bytes moved at max_fs_transfer_bytes', () => {
    const s = sandbox('restricted');
    s.transfer('readFile', 6);
    expect(() => s.transfer('writeFile', 5)).toThrow(
      new SandboxViolation('writeFile: max_fs_transfer_bytes (10) exceeded'),
    );
  });
});
