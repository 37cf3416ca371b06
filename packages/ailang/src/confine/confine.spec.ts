import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfineRaceError,
  openConfinedFile,
  openDirectory,
  openParent,
  probeConfined,
} from './open.js';
import {
  confineName,
  confinePath,
  confineRoot,
  type ConfineRoot,
  type Confined,
} from './resolve.js';
import { foldCase } from './glob.js';
import {
  isInside,
  normalizeSegments,
  programRefusalText,
  toolRefusalText,
  writeRule,
  type Access,
  type Refusal,
} from './rules.js';

/** The rendered policy's deny list (world-internals §8.2; world-spec §2.3, §7.6). */
const DENY = ['.github/**', '.pi/**', '.claude/**', '.ailang/**', '.gitmodules', '.gitattributes'];

let base: string;
let ep: ConfineRoot;
let pointer: ConfineRoot;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'confine-')));
  const e = join(base, 'ep');
  const file = (rel: string, text = 'x\n') => {
    mkdirSync(join(base, rel, '..'), { recursive: true });
    writeFileSync(join(base, rel), text);
  };
  file('ep/.git/config', '[core]\n');
  file('ep/hello.ail', 'module hello\n');
  file('ep/src/a.ail');
  file('ep/sub/.git/config', '[core]\n');
  file('ep/sub/.gitmodules');
  file('ep/.github/ci.yml');
  file('ep/hard-in');
  file('ep2/x', 'sibling secret\n');
  file('ep3/.git', 'gitdir: /somewhere/.git/worktrees/ep3\n');
  file('outside/secret.txt', 'outside secret\n');
  mkdirSync(join(e, 'adir'));
  symlinkSync(join(base, 'outside'), join(e, 'out'));
  symlinkSync(join(base, 'outside', 'secret.txt'), join(e, 'outfile'));
  symlinkSync('../ep2', join(e, 'sib'));
  symlinkSync('.git', join(e, 'g'));
  symlinkSync('sub/.git', join(e, 'subg'));
  symlinkSync('.github', join(e, 'gh'));
  symlinkSync(join(base, 'outside', 'missing.txt'), join(e, 'dangling'));
  symlinkSync('dangling', join(e, 'chain'));
  symlinkSync('src/new.txt', join(e, 'dangling-in'));
  symlinkSync(join(e, 'src', 'a.ail'), join(e, 'link-in'));
  symlinkSync('../ep/src/a.ail', join(e, 'up-and-back'));
  symlinkSync('loop2', join(e, 'loop1'));
  symlinkSync('loop1', join(e, 'loop2'));
  linkSync(join(base, 'outside', 'secret.txt'), join(e, 'hard'));
  linkSync(join(e, 'hard-in'), join(e, 'hard-in2'));
  ep = confineRoot(e);
  pointer = confineRoot(join(base, 'ep3'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const ok = (rel: string) => ({ ok: true as const, rel });
const no = (refusal: Refusal) => ({ ok: false as const, refusal });
const ESCAPE = no({ kind: 'escape' });
const GIT = no({ kind: 'git' });
const deny = (pattern: string) => no({ kind: 'deny', pattern });

/** What a row expects: where the path lands, or why it is refused. */
type Expected = { ok: true; rel: string } | { ok: false; refusal: Refusal };

/**
 * The one table of World's confinement rule: every case of the broker's workspace suite and of
 * the AILANG sandbox suite, plus the reference's path rules. `<ep>` and `<base>` stand for the
 * worktree and its parent.
 */
const ROWS: Array<[string, string, Access, Expected, ('ep' | 'pointer')?]> = [
  // world-spec §3.1, §8.2 "Refused paths": `..`, absolute paths outside, symlinks out.
  ['an absolute path outside (§3.1)', '/etc/hosts', 'read', ESCAPE],
  ['a ../ escape (§8.2)', '../x', 'read', ESCAPE],
  ['a sibling episode sharing a name prefix via ../ (§2.1, §8.2)', '../ep2/x', 'read', ESCAPE],
  ['a program reading ../ep2/secret.txt (§8.2)', '../ep2/secret.txt', 'read', ESCAPE],
  ['a sibling episode via a symlink (§2.1)', 'sib/x', 'read', ESCAPE],
  ['a symlinked file pointing outside (§8.2)', 'outfile', 'read', ESCAPE],
  ['a symlinked directory pointing outside (§8.2)', 'out/secret.txt', 'read', ESCAPE],
  ['a write through a directory symlink pointing outside', 'out/new.txt', 'write', ESCAPE],
  ['a write to a sibling episode via ../', '../ep2/x', 'write', ESCAPE],
  ['an absolute sibling path', '<base>/ep2/x', 'read', ESCAPE],
  ['an absolute path climbing out of the worktree', '<ep>/../ep2/x', 'read', ESCAPE],
  ['a link climbing above the root, even back into it', 'up-and-back', 'read', ESCAPE],
  // Dangling links are judged by where they point (the sandbox refused all, the broker judged
  // one hop: now the whole chain is followed).
  ['a dangling symlink pointing outside, read', 'dangling', 'read', ESCAPE],
  ['a dangling symlink pointing outside, written', 'dangling', 'write', ESCAPE],
  ['a chain of links ending dangling outside', 'chain', 'write', ESCAPE],
  [
    'a dangling link inside names the file a write creates',
    'dangling-in',
    'write',
    ok('src/new.txt'),
  ],
  [
    'a dangling link inside, read (the read reports ENOENT)',
    'dangling-in',
    'read',
    ok('src/new.txt'),
  ],
  ['a symlink loop', 'loop1', 'read', no({ kind: 'loop' })],
  // Hard links: a second name of a file that may lie outside.
  ['a hard link to a file outside, read', 'hard', 'read', no({ kind: 'links', links: 2 })],
  ['a hard link to a file outside, written', 'hard', 'write', no({ kind: 'links', links: 2 })],
  [
    'a file with two names inside is refused alike',
    'hard-in',
    'read',
    no({ kind: 'links', links: 2 }),
  ],
  // Paths that stay inside (ailang.md §1.5: absolute paths inside the sandbox are accepted).
  ['a relative path inside', 'src/a.ail', 'read', ok('src/a.ail')],
  ['an absolute path inside', '<ep>/src/a.ail', 'read', ok('src/a.ail')],
  ['the worktree itself by its absolute name', '<ep>', 'read', ok('')],
  ['an absolute symlink staying inside', 'link-in', 'read', ok('src/a.ail')],
  ['a .. that stays inside', 'src/../src/a.ail', 'read', ok('src/a.ail')],
  ['a segment merely starting with .. (§3.0)', '..a/b.ail', 'read', ok('..a/b.ail')],
  ['a new file inside', 'src/new.txt', 'write', ok('src/new.txt')],
  [
    'a name too long to exist (the operation reports it)',
    'n'.repeat(300),
    'read',
    ok('n'.repeat(300)),
  ],
  // world-spec §2.3, §8.2 "`.git` read-only", at any depth (README "Confinement").
  ['a write to .git/config (§3.2)', '.git/config', 'write', GIT],
  ['a write to .GIT/config (§8.2)', '.GIT/config', 'write', GIT],
  ['a program writing .git/hooks/pre-commit (§8.2)', '.git/hooks/pre-commit', 'write', GIT],
  ['a write to the .git pointer file (§8.2)', '.git', 'write', GIT, 'pointer'],
  ['a write into .git through an in-worktree symlink', 'g/config', 'write', GIT],
  ['a write to a nested repository config', 'sub/.git/config', 'write', GIT],
  ['a write under a nested .GIT case variant', 'sub/.GIT/hooks/post-checkout', 'write', GIT],
  ['creating a nested .git directory', 'new/.git', 'write', GIT],
  ['a write into a nested .git through a symlink', 'subg/config', 'write', GIT],
  ['an absolute write into .git', '<ep>/.git/config', 'write', GIT],
  ['a read of .git (only writes are refused)', '.git/config', 'read', ok('.git/config')],
  // world-spec §8.2 "Deny list" (case-folded, APFS folding), world-internals §8.2 patterns.
  ['a write to .ailang/x.ail (§3.2)', '.ailang/x.ail', 'write', deny('.ailang/**')],
  ['a write to .AILANG/cache/x (§8.2)', '.AILANG/cache/x', 'write', deny('.ailang/**')],
  ['a write to .GitHub/x (§8.2)', '.GitHub/x', 'write', deny('.github/**')],
  [
    'a write to .GITHUB/workflows/ci.yml (§8.2)',
    '.GITHUB/workflows/ci.yml',
    'write',
    deny('.github/**'),
  ],
  ['a write to .CLAUDE/settings.json (§8.2)', '.CLAUDE/settings.json', 'write', deny('.claude/**')],
  ['a write to .Pi/x (§8.2)', '.Pi/x', 'write', deny('.pi/**')],
  ['a write to .GITMODULES (§8.2)', '.GITMODULES', 'write', deny('.gitmodules')],
  ['a write to .gitmoduleſ with U+017F (§8.2)', '.gitmodule\u017f', 'write', deny('.gitmodules')],
  ['a write to .GitAttributes (§8.2)', '.GitAttributes', 'write', deny('.gitattributes')],
  ['a write to the denied directory itself', '.github', 'write', deny('.github/**')],
  [
    'a write normalized into a denied directory',
    './.github/../.github/w.yml',
    'write',
    deny('.github/**'),
  ],
  ['a write into a denied directory through a symlink', 'gh/x.yml', 'write', deny('.github/**')],
  ['a read of a deny-listed path is allowed', '.github/ci.yml', 'read', ok('.github/ci.yml')],
  [
    '.gitmodules below the root is an ordinary file',
    'sub/.gitmodules',
    'write',
    ok('sub/.gitmodules'),
  ],
  ['a name merely starting like a denied directory', '.githubx/a', 'write', ok('.githubx/a')],
  // Malformed paths (the callers turn these into their own errors).
  ['an empty path', '', 'read', no({ kind: 'invalid' })],
  ['a path holding NUL', 'a\0b', 'write', no({ kind: 'invalid' })],
];

describe('confinePath: one rule for tools, programs and toolchain paths (world-spec §2.3, §8.2)', () => {
  it.each(ROWS)('%s: %j (%s)', (_why, path, access, expected, which = 'ep') => {
    const root = which === 'pointer' ? pointer : ep;
    const given = path.replace('<ep>', ep.real).replace('<base>', base);
    const got: Confined = confinePath(root, given, access, DENY);
    if (expected.ok) {
      const abs = expected.rel === '' ? root.real : join(root.real, expected.rel);
      expect(got).toEqual({ ok: true, rel: expected.rel, abs });
    } else {
      expect(got).toEqual(expected);
    }
  });

  it('accepts an absolute path under the name the root was configured with', () => {
    const viaLink = join(base, 'ep-link');
    symlinkSync(ep.real, viaLink);
    const root = confineRoot(viaLink);
    expect(confinePath(root, join(viaLink, 'src', 'a.ail'), 'read', DENY)).toEqual({
      ok: true,
      rel: 'src/a.ail',
      abs: join(ep.real, 'src', 'a.ail'),
    });
  });
});

/**
 * The names removeFile and renameFile act on (confineName): the same rule as a write, then the
 * name itself — a symlink inside the worktree is removed or moved, never its target.
 */
const NAME_ROWS: Array<[string, string, Expected]> = [
  ['a plain file', 'src/a.ail', ok('src/a.ail')],
  ['an absolute symlink staying inside: the link itself', 'link-in', ok('link-in')],
  ['a dangling link inside: the link itself', 'dangling-in', ok('dangling-in')],
  ['a name under a directory reached through a link inside', 'gh/x.yml', deny('.github/**')],
  ['a symlinked file pointing outside (§8.2: escapes for every operation)', 'outfile', ESCAPE],
  ['a dangling link pointing outside', 'dangling', ESCAPE],
  ['a name through a directory symlink pointing outside', 'out/secret.txt', ESCAPE],
  ['a sibling episode via a symlink', 'sib/x', ESCAPE],
  ['a link whose target is .git', 'g', GIT],
  ['a name inside .git through a link', 'g/config', GIT],
  ['a hard link to a file outside', 'hard', no({ kind: 'links', links: 2 })],
  ['the worktree itself (the operation reports EINVAL)', '<ep>', ok('')],
  ['an empty path', '', no({ kind: 'invalid' })],
];

describe('confineName: what a remove or rename acts on (world-spec §8.2; README "Confinement")', () => {
  it.each(NAME_ROWS)('%s: %j', (_why, path, expected) => {
    const got = confineName(ep, path.replace('<ep>', ep.real), DENY);
    if (expected.ok) {
      const abs = expected.rel === '' ? ep.real : join(ep.real, expected.rel);
      expect(got).toEqual({ ok: true, rel: expected.rel, abs });
    } else {
      expect(got).toEqual(expected);
    }
  });
});

describe('opening a confined path without a check-to-open window (confine/open.ts)', () => {
  let root: ConfineRoot;
  let outside: string;
  beforeEach(() => {
    const dir = mkdtempSync(join(base, 'race-'));
    mkdirSync(join(dir, 'wt', 'd'), { recursive: true });
    writeFileSync(join(dir, 'wt', 'd', 'f.txt'), 'inside\n');
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'f.txt'), 'outside\n');
    root = confineRoot(join(dir, 'wt'));
    outside = join(dir, 'out');
  });
  const checked = (path: string) => {
    const got = confinePath(root, path, 'write', DENY);
    if (!got.ok) throw new Error(`refused ${path}`);
    return got.rel.split('/');
  };
  const W = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;

  it('refuses a directory swapped for a symlink out after the check, writing nothing outside', () => {
    const segments = checked('d/f.txt');
    rmSync(join(root.real, 'd'), { recursive: true });
    symlinkSync(outside, join(root.real, 'd'));
    expect(() => openConfinedFile(root.real, segments, W)).toThrow(new ConfineRaceError('d'));
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside\n');
  });

  it('refuses a file swapped for a symlink out after the check', () => {
    const segments = checked('d/f.txt');
    rmSync(join(root.real, 'd', 'f.txt'));
    symlinkSync(join(outside, 'f.txt'), join(root.real, 'd', 'f.txt'));
    expect(() => openConfinedFile(root.real, segments, W)).toThrow(new ConfineRaceError('f.txt'));
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside\n');
  });

  it('refuses a new file whose directory was swapped, creating nothing outside', () => {
    const segments = checked('d/new.txt');
    rmSync(join(root.real, 'd'), { recursive: true });
    symlinkSync(outside, join(root.real, 'd'));
    expect(() => openConfinedFile(root.real, segments, W)).toThrow(new ConfineRaceError('d'));
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  });

  it('opens what was checked when nothing changed, and makes missing directories on request', () => {
    const fd = openConfinedFile(root.real, checked('d/f.txt'), constants.O_RDONLY);
    try {
      expect(readFileSync(fd, 'utf8')).toBe('inside\n');
    } finally {
      closeSync(fd);
    }
    closeSync(openDirectory(root.real, checked('d/x/y'), true));
    expect(statSync(join(root.real, 'd', 'x', 'y')).isDirectory()).toBe(true);
    expect(() => openDirectory(root.real, ['d', 'z'], false)).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });

  it('probes what was checked, and refuses a directory swapped for a symlink out', () => {
    const segments = checked('d/f.txt');
    const seen = (segs: string[]) => {
      const st = probeConfined(root.real, segs);
      return st === null ? 'none' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    };
    expect([
      seen(segments),
      seen(['d']),
      seen([]),
      seen(['d', 'nope']),
      seen(segments.concat('x')),
    ]).toEqual(['file', 'dir', 'dir', 'none', 'none']);
    rmSync(join(root.real, 'd'), { recursive: true });
    symlinkSync(outside, join(root.real, 'd'));
    expect(() => probeConfined(root.real, segments)).toThrow(new ConfineRaceError('d'));
  });

  it('holds a name through its parent, so unlink acts on a link itself', () => {
    symlinkSync(join(root.real, 'd', 'f.txt'), join(root.real, 'link'));
    const held = openParent(root.real, ['link'], false);
    try {
      unlinkSync(held.path);
    } finally {
      held.close();
    }
    expect([
      existsSync(join(root.real, 'link')),
      readFileSync(join(root.real, 'd', 'f.txt'), 'utf8'),
    ]).toEqual([false, 'inside\n']);
    expect(() => openParent(root.real, [], false)).toThrow(
      expect.objectContaining({ code: 'EINVAL' }),
    );
  });
});

describe('the refusal texts of the two surfaces (world-spec §3.1, §3.2, §8.2; ailang.md §1.5)', () => {
  const wt = '/ws/ep';
  it.each<[string, string, string, Refusal, string]>([
    [
      'read',
      '/etc/hosts',
      wt,
      { kind: 'escape' },
      'read /etc/hosts: path "/etc/hosts" escapes sandbox "/ws/ep"',
    ],
    [
      'write',
      '.git/config',
      wt,
      { kind: 'git' },
      "write .git/config: .git/ is read-only to the lane's tools",
    ],
    [
      'write',
      '.ailang/x.ail',
      wt,
      { kind: 'deny', pattern: '.ailang/**' },
      'write .ailang/x.ail: matches fs_deny_write ".ailang/**" — read-only under this policy',
    ],
    [
      'read',
      'token',
      wt,
      { kind: 'links', links: 2 },
      'read token: path "token" escapes sandbox "/ws/ep": it has 2 hard links',
    ],
    [
      'read',
      'loop1',
      wt,
      { kind: 'loop' },
      'read loop1: path "loop1": too many levels of symbolic links',
    ],
  ])('a tool: %s %j', (verb, path, root, refusal, text) => {
    expect(toolRefusalText(verb, path, root, refusal)).toBe(text);
  });

  it.each<[string, string, Refusal, 'restricted' | 'trusted_host', string]>([
    [
      'readFile',
      '../ep2/secret.txt',
      { kind: 'escape' },
      'restricted',
      'readFile: path "../ep2/secret.txt" escapes sandbox "/ws/ep"',
    ],
    [
      'readFile',
      'token',
      { kind: 'links', links: 3 },
      'restricted',
      'readFile: path "token" escapes sandbox "/ws/ep": it has 3 hard links',
    ],
    [
      'writeFile',
      '.git/config',
      { kind: 'git' },
      'restricted',
      'writeFile: E_FS_PROTECTED: path ".git/config" is under .git, which is read-only in restricted mode',
    ],
    [
      'writeFile',
      'sub/.git/config',
      { kind: 'git' },
      'trusted_host',
      'writeFile: E_FS_PROTECTED: path "sub/.git/config" is under .git, which is read-only in every security mode',
    ],
    [
      'writeFile',
      '.claude/settings.json',
      { kind: 'deny', pattern: '.claude/**' },
      'restricted',
      'writeFile: E_FS_PROTECTED: path ".claude/settings.json" matches fs_deny_write ".claude/**" — read-only under this policy',
    ],
    ['readFile', 'a\0b', { kind: 'invalid' }, 'restricted', 'readFile: invalid path "a\\u0000b"'],
  ])('a program: %s %j', (op, path, refusal, mode, text) => {
    expect(programRefusalText(op, path, wt, refusal, mode)).toBe(text);
  });
});

describe('the pure path rules (world-spec §2.3, §8.2)', () => {
  it.each([
    ['a/./b//c', ['a', 'b', 'c']],
    ['a/../b', ['b']],
    ['..a/b.ail', ['..a', 'b.ail']],
    ['a/..', []],
    ['..', null],
    ['a/../../b', null],
  ])('normalizes %j to %j', (path, expected) => {
    expect(normalizeSegments(path)).toEqual(expected);
  });

  it.each([
    ['.GIT', '.git'],
    ['.gitmodule\u017f', '.gitmodules'],
    ['\u212Aeep', 'keep'],
    ['.Claude', '.claude'],
  ])('folds %j to %j as APFS does', (name, folded) => {
    expect(foldCase(name)).toBe(folded);
  });

  it.each<[string[], Refusal | null]>([
    [['.github'], { kind: 'deny', pattern: '.github/**' }],
    [['sub', '.git', 'hooks'], { kind: 'git' }],
    [['a', 'b', '.Git'], { kind: 'git' }],
    [['.gitignore'], null],
    [['sub', '.gitmodules'], null],
    [['.githubx', 'a'], null],
    [['src', 'main.ail'], null],
    [[], null],
  ])('judges the write of %j', (segments, expected) => {
    expect(writeRule(segments, DENY)).toEqual(expected);
  });

  it('does not take a name prefix for containment', () => {
    expect([
      isInside('/ws/ep', '/ws/ep2/x'),
      isInside('/ws/ep', '/ws/ep/x'),
      isInside('/ws/ep', '/ws/ep'),
      isInside('/ws/ep/', '/ws/ep/x'),
    ]).toEqual([false, true, true, true]);
  });
});
