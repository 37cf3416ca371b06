import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThread, runProgram, tempWorktree } from '../../test/helpers/programs.js';
import { parseTypeText } from '../lang/parser.js';
import { IMPLS } from './impl.js';
import { BUILTINS, effectOf } from './registry.js';

const IMPORTS = [
  'import std/io (println)',
  'import std/string (length, substring, toUpper, toLower, trim, compare, find, contains, startsWith, endsWith, split, chars, words, lines, join, repeat, replace, stringToInt, stringToFloat, intToStr, floatToStr)',
  'import std/list as L',
  'import std/math (sqrt, pow, floor, ceil, round, floatToInt, intToFloat, abs_Int, abs_Float, PI)',
  'import std/option as O',
  'import std/result as R',
];

function value(expr: string): string {
  const src = [
    'module prog',
    ...IMPORTS,
    'export func main() -> () ! {IO} {',
    `  println(show(${expr}))`,
    '}',
  ].join('\n');
  const r = runProgram(src);
  if (r.exitCode !== 0) return `exit ${r.exitCode}: ${r.stderr}`;
  return r.stdout.slice(0, -1);
}

describe('registry (ailang.md §4)', () => {
  it('implements every builtin it lists', () => {
    expect(BUILTINS.filter((b) => !IMPLS.has(b.name)).map((b) => b.name)).toEqual([]);
    expect(IMPLS.size).toBe(BUILTINS.length);
  });

  it('lists every signature in parseable AILANG syntax, names unique', () => {
    for (const b of BUILTINS) expect(() => parseTypeText(b.type)).not.toThrow();
    expect(new Set(BUILTINS.map((b) => b.name)).size).toBe(BUILTINS.length);
  });

  it.each([
    ['_io_println', 'IO'],
    ['_fs_readFile', 'FS'],
    ['_env_hasEnv', 'Env'],
    ['_clock_now', 'Clock'],
    ['_net_httpRequest', 'Net'],
    ['std/list.mapE', null],
    ['_str_len', null],
  ])('gives %s the effect %p', (name, effect) => {
    expect(effectOf(BUILTINS.find((b) => b.name === name)!)).toBe(effect);
  });
});

describe('std/string, std/list, std/math, std/option, std/result (ailang.md §2.3)', () => {
  it.each([
    ['length("héllo")', '5'],
    ['substring("hello", 1, 3)', 'el'],
    ['substring("hello", -2, 99)', 'hello'],
    ['toUpper("ab") ++ toLower("CD")', 'ABcd'],
    ['trim("  x  ")', 'x'],
    ['(compare("a", "b"), compare("b", "b"), compare("c", "b"))', '(-1, 0, 1)'],
    ['(find("hello", "l"), find("hello", "z"))', '(2, -1)'],
    [
      '(contains("abc", "b"), startsWith("abc", "ab"), endsWith("abc", "bc"))',
      '(true, true, true)',
    ],
    ['split("a,b,,c", ",")', '[a, b, , c]'],
    ['chars("ab")', '[a, b]'],
    ['words("  a  b\\tc ")', '[a, b, c]'],
    ['lines("a\\r\\nb\\n")', '[a, b]'],
    ['join("-", ["a", "b", "c"])', 'a-b-c'],
    ['repeat("ab", 3)', 'ababab'],
    ['replace("a.b.c", ".", "/")', 'a/b/c'],
    [
      '(stringToInt("42"), stringToInt("-7"), stringToInt("4x"), stringToInt("99999999999999999999"))',
      '(Some(42), Some(-7), None, None)',
    ],
    ['(stringToFloat("2.5"), stringToFloat("x"))', '(Some(2.5), None)'],
    ['intToStr(12) ++ floatToStr(2.0)', '122.0'],
    ['L.map(\\x. x * 2, [1, 2, 3])', '[2, 4, 6]'],
    ['L.filter(\\x. x % 2 == 0, [1, 2, 3, 4])', '[2, 4]'],
    ['L.foldl(\\acc x. acc - x, 10, [1, 2, 3])', '4'],
    ['L.foldr(\\x acc. x - acc, 0, [1, 2, 3])', '2'],
    ['L.sortBy(\\a b. a - b, [3, 1, 2])', '[1, 2, 3]'],
    [
      '(L.head([1, 2]), L.head([]), L.last([1, 2]), L.nth([1, 2], 1), L.nth([1], 5))',
      '(Some(1), None, Some(2), Some(2), None)',
    ],
    ['(L.tail([1, 2, 3]), L.reverse([1, 2, 3]), L.length([1, 2]))', '([2, 3], [3, 2, 1], 2)'],
    ['(L.take(2, [1, 2, 3]), L.drop(2, [1, 2, 3]), L.concat([1], [2]))', '([1, 2], [3], [1, 2])'],
    ['L.zip([1, 2, 3], ["a", "b"])', '[(1, a), (2, b)]'],
    [
      '(L.any(\\x. x > 2, [1, 3]), L.all(\\x. x > 2, [1, 3]), L.findIndex(\\x. x > 1, [1, 3]))',
      '(true, false, Some(1))',
    ],
    [
      '(L.zipWith(\\a b. a + b, [1, 2], [10, 20]), L.flatMap(\\x. [x, x], [1, 2]), L.contains([1, 2], 2))',
      '([11, 22], [1, 1, 2, 2], true)',
    ],
    ['(sqrt(16.0), pow(2.0, 3.0), floor(2.7), ceil(2.1))', '(4.0, 8.0, 2.0, 3.0)'],
    ['(round(2.5), round(-2.5), floatToInt(-2.9), intToFloat(3))', '(3.0, -3.0, -2, 3.0)'],
    ['(abs_Int(-4), abs_Float(-1.5), sqrt(16))', '(4, 1.5, 4.0)'],
    [
      '(O.map(\\x. x + 1, Some(1)), O.getOrElse(None, 7), O.isSome(Some(1)), O.filter(\\x. x > 5, Some(1)))',
      '(Some(2), 7, true, None)',
    ],
    [
      '(R.map(\\x. x + 1, Ok(1)), R.mapErr(\\e. e ++ "!", Err("x")), R.isOk(Ok(1)), R.unwrap(Ok(3)))',
      '(Ok(2), Err(x!), true, 3)',
    ],
  ])('%s → %s', (expr, expected) => {
    expect(value(expr)).toBe(expected);
  });
});

describe('std/fs under the policy (ailang.md §1.5; world-spec §3.5)', () => {
  const fsProgram = (body: string[]): string =>
    [
      'module prog',
      'import std/io (println)',
      'import std/fs (readFile, writeFile, appendFile, fileExists, listDir, mkdirAll, isDir, isFile, removeFile, renameFile, readFileResult)',
      'export func main() -> () ! {IO, FS} {',
      ...body.map((l) => `  ${l}`),
      '}',
    ].join('\n');

  it('writes, appends, reads, lists, renames and removes inside the sandbox (§2.4 effects_fs_io)', () => {
    const wt = tempWorktree({
      'prog.ail': fsProgram([
        'mkdirAll("out/deep")',
        'writeFile("out/a.txt", "one\\n")',
        'appendFile("out/a.txt", "two\\n")',
        'renameFile("out/a.txt", "out/b.txt")',
        'println(readFile("out/b.txt") ++ show(listDir("out")) ++ show((fileExists("out/a.txt"), isDir("out/deep"), isFile("out/b.txt"))))',
        'removeFile("out/deep")',
        'println(show(readFileResult("missing.txt")))',
      ]),
    });
    try {
      const r = runInThread(wt.dir, 'prog.ail');
      expect([r.stdout, r.stderr, r.exitCode]).toEqual([
        'one\ntwo\n[b.txt, deep](false, true, true)\nErr(readFileResult: open missing.txt: no such file or directory)\n',
        '',
        0,
      ]);
      expect(readFileSync(join(wt.dir, 'out/b.txt'), 'utf8')).toBe('one\ntwo\n');
    } finally {
      wt.cleanup();
    }
  });

  it.each([
    [
      'an escape is fatal even for a *Result builtin',
      ['println(show(readFileResult("/etc/hosts")))'],
      'Error: execution failed: readFileResult: path "/etc/hosts" escapes sandbox "<root>"\n',
    ],
    [
      'a write to .git (world-spec §8.2)',
      ['writeFile(".git/config", "x")'],
      'Error: execution failed: writeFile: E_FS_PROTECTED: path ".git/config" is under .git, which is read-only in restricted mode\n',
    ],
    [
      'a deny-listed write',
      ['writeFile(".claude/settings.json", "x")'],
      'Error: execution failed: writeFile: E_FS_PROTECTED: path ".claude/settings.json" matches fs_deny_write ".claude/**" — read-only under this policy\n',
    ],
    [
      'a missing file',
      ['println(readFile("nope.txt"))'],
      'Error: execution failed: readFile: open nope.txt: no such file or directory\n',
    ],
  ])('stops with exit 1 on %s', (_name, body, stderr) => {
    const wt = tempWorktree({ 'prog.ail': fsProgram(body) });
    try {
      const r = runInThread(wt.dir, 'prog.ail');
      expect([r.stderr, r.exitCode]).toEqual([stderr.replace('<root>', wt.dir), 1]);
    } finally {
      wt.cleanup();
    }
  });

  it('stops when the FS operation budget is spent (§1.5 [budgets] FS)', () => {
    const wt = tempWorktree({
      'prog.ail': fsProgram([
        'println(show(fileExists("a")))',
        'println(show(fileExists("b")))',
        'println(show(fileExists("c")))',
      ]),
    });
    try {
      const r = runInThread(wt.dir, 'prog.ail', { policy: { budgets: { FS: 2 } } });
      expect([r.stdout, r.stderr, r.exitCode]).toEqual([
        'false\nfalse\n',
        "Error: execution failed: effect 'FS' budget exhausted: limit=2, used=2\n",
        1,
      ]);
    } finally {
      wt.cleanup();
    }
  });

  it('gives getArgs the argv after the file when Env is granted (world-spec §3.5 argv)', () => {
    const src =
      'module prog\nimport std/env (getArgs)\nexport func main() -> [string] ! {Env} = getArgs()';
    const r = runProgram(src, {
      policy: { allowed_caps: ['Env', 'FS', 'IO'] },
      argv: ['--caps=IO,Net', '-', 'a b'],
    });
    expect([r.stdout, r.exitCode]).toEqual(['[--caps=IO,Net, -, a b]\n', 0]);
  });
});
