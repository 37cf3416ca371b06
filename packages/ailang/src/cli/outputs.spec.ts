import { checkSources, tempWorktree } from '../../test/helpers/programs.js';
import { worktreeReader } from '../toolchain/confine.js';
import { builtinsJson, builtinsText, listBuiltins } from './builtins-output.js';
import { aiCheckJson, checkHuman, checkJson } from './check-output.js';
import { examplesSearch, examplesShow } from './examples.js';
import { ifaceCommand } from './iface.js';

const OK = { 'ok.ail': 'module ok\nexport pure func main() -> int = 1\n' };
const BAD = { 'bad.ail': 'module bad\nexport pure func main() -> int = "x"\n' };

describe('check outputs (ailang.md §1.3, §1.4)', () => {
  it('prints passed JSON with exit 0', () => {
    expect(checkJson(checkSources(OK, 'ok.ail'))).toEqual({
      exitCode: 0,
      stdout: '{\n  "file": "ok.ail",\n  "passed": true,\n  "error_count": 0,\n  "errors": []\n}\n',
      stderr: '',
    });
  });

  it('prints ai-check JSON with verify unavailable (no Z3) and exit 1 on failure', () => {
    const out = aiCheckJson(checkSources(BAD, 'bad.ail'));
    expect([out.exitCode, JSON.parse(out.stdout)]).toEqual([
      1,
      {
        file: 'bad.ail',
        check: {
          passed: false,
          error_count: 1,
          errors: [
            {
              code: 'TC_TYPE_001',
              message:
                'type error in bad (decl 0): at bad.ail:2:34: type mismatch in the function body: expected int, got string',
              file: 'bad.ail',
              line: 2,
              column: 34,
              suggestion: 'change the expression or the annotation so both have the expected type',
            },
          ],
        },
        verify: {
          available: false,
          verified: 0,
          counterexample: 0,
          skipped: 0,
          errors: 0,
          results: [],
        },
      },
    ]);
  });

  it.each([
    [
      OK,
      'ok.ail',
      false,
      {
        exitCode: 0,
        stdout: '→ Type checking ok.ail...\n→ Effect checking...\n\n✓ No errors found!\n',
        stderr: '',
      },
    ],
    [OK, 'ok.ail', true, { exitCode: 0, stdout: '\n✓ No errors found!\n', stderr: '' }],
    [
      BAD,
      'bad.ail',
      false,
      {
        exitCode: 1,
        stdout: '→ Type checking bad.ail...\n',
        stderr:
          'Error: type error in bad (decl 0): at bad.ail:2:34: type mismatch in the function body: expected int, got string\n',
      },
    ],
  ])('prints the human check of %#', (files, file, quiet, expected) => {
    expect(checkHuman(checkSources(files, file), quiet)).toEqual(expected);
  });
});

describe('builtins inventory (ailang.md §1.7; world-spec §3.6)', () => {
  it('prints the total, a blank line, then two-space-indented entries: name padded to 30, [effect], module, sorted by name (the real listAllBuiltins)', () => {
    const items = listBuiltins({ query: 'println' });
    expect(builtinsText(items)).toBe(
      [
        'Total: 2 builtins',
        '',
        '  _io_eprintln                   [io] std/io',
        '  _io_println                    [io] std/io',
        '',
      ].join('\n'),
    );
    const lines = builtinsText(listBuiltins()).split('\n');
    expect(lines.slice(0, 2)).toEqual([`Total: ${listBuiltins().length} builtins`, '']);
    expect(lines).toContain('  _str_len                       [pure] std/string');
    expect(lines).toContain('  _list_map                      [pure] $builtin');
    expect(lines).toContain('  _clock_sleep                   [clock] std/clock');
    expect(lines).toContain('  intToFloat                     [pure] std/prelude');
    expect(lines).toContain('  show                           [pure] prelude');
    const names = lines.slice(2, -1).map((l) => l.trim().split(' ')[0]!);
    expect(names).toEqual([...names].sort());
  });

  it('filters by exact module and by query over name, module and description', () => {
    expect(listBuiltins({ module: 'std/io', query: 'println' }).map((b) => b.name)).toEqual([
      '_io_eprintln',
      '_io_println',
    ]);
  });

  it('prints the JSON inventory on one line', () => {
    const items = listBuiltins({ query: '_io_println' });
    expect(builtinsJson(items)).toBe(
      '{"count":1,"builtins":[{"name":"_io_println","module":"std/io","signature":"_io_println: (string) -> () ! {IO}","is_pure":false,"effect":"IO","num_args":1,"description":"Print a string to stdout with a newline"}]}\n',
    );
  });
});

describe('iface (ailang.md §1.7)', () => {
  const wt = tempWorktree({
    'lib/util.ail':
      'module lib/util\nexport type Pair = Pair(int, int)\nexport pure func add(a: int, b: int) -> int = a + b\nfunc hidden() -> int = 1\n',
  });
  afterAll(() => wt.cleanup());

  it('prints the compact std/io interface of the world-spec §3.8 example', () => {
    const out = ifaceCommand('std/io', true, worktreeReader(wt.dir));
    expect(out.stdout.split('\n').slice(0, 3)).toEqual([
      'module std/io',
      'eprintln : (string)->()!{IO}',
      'exit : (int)->()!{IO}',
    ]);
  });

  it('prints a worktree module as JSON, exports only', () => {
    expect(ifaceCommand('lib/util', false, worktreeReader(wt.dir))).toEqual({
      exitCode: 0,
      stdout:
        '{"module":"lib/util","types":[{"name":"Pair","ctors":["Pair(int, int)"],"alias":""}],"funcs":[{"name":"add","type":"(int, int) -> int"}]}\n',
      stderr: '',
    });
  });

  it('fails with exit 1 for an unknown module', () => {
    expect(ifaceCommand('std/nope', false, worktreeReader(wt.dir))).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'Error: unknown module std/nope\n',
    });
  });
});

describe('examples corpus (world-spec §3.7)', () => {
  const corpus = tempWorktree({
    'manifest.json': '{}',
    'runnable/lists.ail': 'module lists\n-- folds\nlet total = foldl(f, 0, xs)\n',
    'runnable/hello.ail': 'module hello\nprintln("hi")\n',
  });
  afterAll(() => corpus.cleanup());

  it('finds the first matching line of each example', () => {
    expect(examplesSearch(corpus.dir, 'FOLD', 20).stdout).toBe(
      '1 example matches "FOLD":\nrunnable/lists.ail:2: -- folds\n',
    );
  });

  it('reports no match', () => {
    expect(examplesSearch(corpus.dir, 'zzz', 20).stdout).toBe('No examples match "zzz".\n');
  });

  it('shows an example by name', () => {
    expect(examplesShow(corpus.dir, 'hello').stdout).toBe('module hello\nprintln("hi")\n');
  });
});
