/**
 * Confinement end to end over the official MCP client, in both run modes (world-spec §2.3, §8.2;
 * README "Confinement"): a hard link in a seeded worktree is not a way out of it, whichever tool
 * reads it (ailang-read, ailang-edit, an ailang-run program, ailang-check's module imports,
 * ailang-cli), and no way of writing — tools or programs — changes a `.git` directory at any
 * depth: the file keeps its bytes after every attempt.
 */
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { FULL_GRANTS, MODES, startTestSystem, type TestSystem } from '../support/system.js';

/** A module whose entry uses only FS and IO, with `lines` as its body. */
const program = (name: string, imports: string, lines: string[]): string =>
  [
    `module ${name}`,
    '',
    `import std/fs (${imports})`,
    'import std/io (println)',
    '',
    'export func main() -> () ! {IO, FS} {',
    ...lines.map((l) => `  ${l}`),
    '}',
    '',
  ].join('\n');

const NESTED_CONFIG = '[core]\n\tbare = false\n';
const HOOKS = '"[core]\\n\\thooksPath = /outside/hooks\\n"';

/** Programs that try every way a program writes, each against the nested `.git`. */
const GIT_WRITES: Array<{ op: string; line: string; path: string }> = [
  { op: 'writeFile', line: `writeFile("sub/.git/config", ${HOOKS})`, path: 'sub/.git/config' },
  { op: 'appendFile', line: `appendFile("sub/.git/config", ${HOOKS})`, path: 'sub/.git/config' },
  {
    op: 'writeFileResult',
    line: `println(show(writeFileResult("sub/.git/config", ${HOOKS})))`,
    path: 'sub/.git/config',
  },
  { op: 'mkdirAll', line: 'mkdirAll("sub/.git/hooks")', path: 'sub/.git/hooks' },
  {
    op: 'renameFile',
    line: 'renameFile("evil.txt", "sub/.git/config")',
    path: 'sub/.git/config',
  },
  { op: 'removeFile', line: 'removeFile("sub/.git/config")', path: 'sub/.git/config' },
  {
    op: 'writeFile',
    line: `writeFile("deep/er/.GIT/config", ${HOOKS})`,
    path: 'deep/er/.GIT/config',
  },
];

const runOf = (out: Record<string, unknown>) => ({
  admitted: out.admitted,
  exit_code: out.exit_code,
  stdout: out.stdout,
  firstStderrLine: String(out.stderr).split('\n')[0],
});

describe.each(MODES)('confinement over MCP (%s mode)', (mode) => {
  let w: TestSystem;
  let client: Client;
  let hardWorktree: string;
  let gitWorktree: string;
  let tokenBefore: string;
  let outsideModule: string;

  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await client.callTool({ name, arguments: args });
    return res.structuredContent as Record<string, unknown>;
  };

  beforeAll(async () => {
    w = await startTestSystem(mode);
    // A worktree the operator seeded by hand and adopted as source "empty": it holds hard links
    // to the operator token and to a module outside the workspace root.
    hardWorktree = join(w.paths.workspaceRoot, 'hl');
    mkdirSync(hardWorktree, { recursive: true });
    linkSync(w.paths.operatorTokenFile, join(hardWorktree, 'token'));
    outsideModule = join(w.paths.home, 'leak.ail');
    writeFileSync(outsideModule, 'module leak\n\nexport pure func secret() -> int = 42\n');
    linkSync(outsideModule, join(hardWorktree, 'leak.ail'));
    writeFileSync(
      join(hardWorktree, 'reads.ail'),
      program('reads', 'readFile', ['println(readFile("token"))']),
    );
    writeFileSync(
      join(hardWorktree, 'uses.ail'),
      'module uses\n\nimport leak (secret)\nimport std/io (println)\n\nexport func main() -> () ! {IO} {\n  println(show(secret()))\n}\n',
    );
    tokenBefore = readFileSync(w.paths.operatorTokenFile, 'utf8');
    await w.system.rpc.request(
      'broker.episode.create',
      { episodeId: 'hl', source: { kind: 'empty' } },
      { timeoutMs: 10_000 },
    );
    gitWorktree = await w.episode('gitw', {
      'sub/.git/config': NESTED_CONFIG,
      'deep/er/.git/config': NESTED_CONFIG,
      'evil.txt': '[core]\n\thooksPath = /outside/hooks\n',
      ...Object.fromEntries(
        GIT_WRITES.map(({ op, line }, i) => [`w${i}.ail`, program(`w${i}`, op, [line])]),
      ),
    });
  });
  afterAll(async () => {
    await w?.close();
  });

  describe('a hard link to a file outside the worktree is refused by every reader', () => {
    const escapes = (verb: string, path: string) =>
      `${verb} ${path}: path "${path}" escapes sandbox "${hardWorktree}": it has 2 hard links`;

    beforeAll(async () => {
      client = await w.v2Client(await w.session('hl', FULL_GRANTS));
    });
    afterEach(() => {
      // Nothing that read or wrote through the link changed the operator token or its link.
      expect(readFileSync(w.paths.operatorTokenFile, 'utf8')).toBe(tokenBefore);
      expect(statSync(join(hardWorktree, 'token')).nlink).toBe(2);
    });

    it('ailang-read refuses it and names why', async () => {
      const out = await call('ailang-read', { path: 'token' });
      expect([out.ok, out.refused, out.content]).toEqual([
        false,
        escapes('read', 'token'),
        undefined,
      ]);
    });

    it('ailang-edit refuses it without reading it', async () => {
      const out = await call('ailang-edit', {
        path: 'token',
        old_text: tokenBefore.slice(0, 8),
        new_text: 'x',
      });
      expect([out.ok, out.refused]).toEqual([false, escapes('edit', 'token')]);
    });

    it('ailang-write refuses to replace it', async () => {
      const out = await call('ailang-write', { path: 'token', content: 'replaced\n' });
      expect([out.ok, out.refused]).toEqual([false, escapes('write', 'token')]);
    });

    it("an ailang-run program's readFile stops with the escape", async () => {
      const out = await call('ailang-run', { path: 'reads.ail' });
      expect(runOf(out)).toEqual({
        admitted: true,
        exit_code: 1,
        stdout: '',
        // Run results name the worktree "." (no host path in a run's stderr).
        firstStderrLine:
          'Error: execution failed: readFile: path "token" escapes sandbox ".": it has 2 hard links',
      });
    });

    it('ailang-run refuses a hard-linked entry file', async () => {
      const out = await call('ailang-run', { path: 'leak.ail' });
      expect([out.ok, out.refused]).toEqual([false, escapes('run', 'leak.ail')]);
    });

    it("ailang-check's module import of a hard link is a read failure", async () => {
      const out = await call('ailang-check', { path: 'uses.ail' });
      expect([out.ok, out.passed, out.error_count]).toEqual([true, false, 1]);
      expect(out.errors).toEqual([
        {
          code: 'IMP010',
          file: 'uses.ail',
          message: `uses.ail:3:1: unknown module leak: open leak.ail: path "leak.ail" escapes sandbox "${hardWorktree}": it has 2 hard links`,
        },
      ]);
    });

    it('ailang-cli refuses a hard-linked path', async () => {
      const out = await call('ailang-cli', { op: 'check', path: 'leak.ail' });
      expect([out.ok, out.refused]).toEqual([false, escapes('check', 'leak.ail')]);
    });
  });

  describe('a .git directory at any depth is read-only to every way of writing', () => {
    beforeAll(async () => {
      client = await w.v2Client(await w.session('gitw', FULL_GRANTS));
    });
    afterEach(() => {
      expect(readFileSync(join(gitWorktree, 'sub/.git/config'), 'utf8')).toBe(NESTED_CONFIG);
      expect(readFileSync(join(gitWorktree, 'deep/er/.git/config'), 'utf8')).toBe(NESTED_CONFIG);
      expect(() => statSync(join(gitWorktree, 'sub/.git/hooks'))).toThrow(/ENOENT/);
      expect(readFileSync(join(gitWorktree, 'evil.txt'), 'utf8')).toBe(
        '[core]\n\thooksPath = /outside/hooks\n',
      );
    });

    it.each(GIT_WRITES.map(({ op, line, path }, i) => [op, line, path, i] as const))(
      'an ailang-run program calling %s (%s) is stopped with E_FS_PROTECTED',
      async (op, _line, path, i) => {
        const out = await call('ailang-run', { path: `w${i}.ail` });
        expect(runOf(out)).toEqual({
          admitted: true,
          exit_code: 1,
          stdout: '',
          firstStderrLine: `Error: execution failed: ${op}: E_FS_PROTECTED: path "${path}" is under .git, which is read-only in restricted mode`,
        });
      },
    );

    it.each([
      ['ailang-write', { path: 'sub/.git/config', content: 'x' }, 'write sub/.git/config'],
      [
        'ailang-edit',
        { path: 'sub/.git/config', old_text: 'bare', new_text: 'x' },
        'edit sub/.git/config',
      ],
      [
        'ailang-write',
        { path: 'deep/er/.Git/hooks/pre-commit', content: 'x' },
        'write deep/er/.Git/hooks/pre-commit',
      ],
    ])('%s is refused (%j)', async (tool, args, prefix) => {
      const out = await call(tool, args);
      expect([out.ok, out.refused]).toEqual([
        false,
        `${prefix}: .git/ is read-only to the lane's tools`,
      ]);
    });
  });
  describe('removeFile and renameFile of a symlink act on the link, and a link out escapes', () => {
    let linksWorktree: string;
    let outsideFile: string;
    beforeAll(async () => {
      outsideFile = join(w.paths.home, 'outside.txt');
      writeFileSync(outsideFile, 'outside\n');
      linksWorktree = await w.episode('links', {
        'kept.txt': 'kept\n',
        'rm.ail': program('rm', 'removeFile', ['removeFile("link-in")', 'println("removed")']),
        'mv.ail': program('mv', 'renameFile', [
          'renameFile("link-in2", "moved")',
          'println("moved")',
        ]),
        'out.ail': program('out', 'removeFile', ['removeFile("out-link")']),
      });
      symlinkSync('kept.txt', join(linksWorktree, 'link-in'));
      symlinkSync('kept.txt', join(linksWorktree, 'link-in2'));
      symlinkSync(outsideFile, join(linksWorktree, 'out-link'));
      client = await w.v2Client(await w.session('links', FULL_GRANTS));
    });

    it('removes and renames the link itself; the file it names stays', async () => {
      const rm = runOf(await call('ailang-run', { path: 'rm.ail' }));
      const mv = runOf(await call('ailang-run', { path: 'mv.ail' }));
      expect([rm.exit_code, rm.stdout, mv.exit_code, mv.stdout]).toEqual([
        0,
        'removed\n',
        0,
        'moved\n',
      ]);
      expect([
        existsSync(join(linksWorktree, 'link-in')),
        existsSync(join(linksWorktree, 'link-in2')),
        readlinkSync(join(linksWorktree, 'moved')),
        readFileSync(join(linksWorktree, 'kept.txt'), 'utf8'),
      ]).toEqual([false, false, 'kept.txt', 'kept\n']);
    });

    it('refuses to remove a link pointing outside, like every operation on it (§8.2)', async () => {
      expect(runOf(await call('ailang-run', { path: 'out.ail' }))).toEqual({
        admitted: true,
        exit_code: 1,
        stdout: '',
        firstStderrLine: 'Error: execution failed: removeFile: path "out-link" escapes sandbox "."',
      });
      expect([
        readlinkSync(join(linksWorktree, 'out-link')),
        readFileSync(outsideFile, 'utf8'),
      ]).toEqual([outsideFile, 'outside\n']);
    });
  });
});
