import { checkSources } from '../../test/helpers/programs.js';

/** Checks `m.ail` holding `module m` plus the given lines. */
function diags(lines: string[], extra: Record<string, string> = {}) {
  const r = checkSources({ 'm.ail': ['module m', ...lines].join('\n'), ...extra }, 'm.ail');
  return r.diagnostics.map((d) => ({
    code: d.code,
    message: d.message,
    line: d.line,
    column: d.column,
  }));
}

const IO = 'import std/io (println)';

describe('checkProgram: programs that type-check (ailang.md §2.4 shapes)', () => {
  it.each([
    ['hello (§2.4 hello_io)', [IO, 'export func main() -> () ! {IO} { println("hi") }']],
    [
      'recursion and ADT match (§2.4 adt_tree, factorial)',
      [
        'type Tree = | Leaf(int) | Node(Tree, int, Tree)',
        'pure func sumTree(t: Tree) -> int = match t { Leaf(n) => n, Node(l, v, r) => sumTree(l) + v + sumTree(r) }',
        'pure func fact(n: int) -> int = if n <= 1 then 1 else n * fact(n - 1)',
      ],
    ],
    [
      'closures and curried calls (§2.4 closures)',
      ['pure func f() -> int = let makeAdder = \\n. \\x. x + n in makeAdder(10)(5)'],
    ],
    [
      'let-polymorphism of let-bound lambdas',
      ['pure func f() -> (int, string) = let id = \\x. x in (id(1), id("a"))'],
    ],
    [
      'int literals adopt float in float context',
      ['pure func area(r: float) -> float = 3 * r * r'],
    ],
    [
      'records, field access and update (§2.4 micro_record_person)',
      ['pure func older(p: {name: string, age: int}) -> int = {p | age: p.age + 1}.age'],
    ],
    [
      'field access infers an open record',
      ['pure func name(p: {name: string, age: int}) -> string = let get = \\r. r.name in get(p)'],
    ],
    [
      'parametric ADT and type parameters',
      ['type Box[a] = Box(a)', 'pure func unbox[a](b: Box[a]) -> a = match b { Box(x) => x }'],
    ],
    [
      'Option constructors are always in scope',
      ['pure func f(x: int) -> Option[int] = if x > 0 then Some(x) else None'],
    ],
    [
      'list patterns with spread (§2.1)',
      ['pure func sum(xs: [int]) -> int = match xs { [] => 0, [x, ...rest] => x + sum(rest) }'],
    ],
    ['++ on strings and lists', ['pure func f() -> ([int], string) = ([1] ++ [2], "a" ++ "b")']],
    [
      'std imports by name and alias (§2.1)',
      [
        'import std/list as L',
        'import std/string (length)',
        'pure func f(xs: [string]) -> [int] = L.map(length, xs)',
      ],
    ],
    [
      'user-module imports',
      ['import lib/util (double)', 'pure func f() -> int = double(2)'],
      { 'lib/util.ail': 'module lib/util\nexport pure func double(x: int) -> int = x * 2\n' },
    ],
  ] as [string, string[], Record<string, string>?][])('%s', (...row) => {
    expect(diags(row[1], row[2])).toEqual([]);
  });
});

describe('checkProgram: what is reported (ailang.md §1.3 error JSON)', () => {
  it.each([
    [
      'a string where Num is needed (§1.3 "No instance for Num[string]")',
      [IO, 'export func main() -> () ! {IO} {', '  println(show("a" + 1))', '}'],
      [
        {
          code: 'TC_CLASS_001',
          message: 'type error in m (decl 0): at m.ail:4:16: No instance for Num[string] in scope',
          line: 4,
          column: 16,
        },
      ],
    ],
    [
      'wrong argument count (TC_ARITY_001)',
      ['pure func add(a: int, b: int) -> int = a + b', 'pure func f() -> int = add(1)'],
      [
        {
          code: 'TC_ARITY_001',
          message:
            'type error in m (decl 1): at m.ail:3:24: arity mismatch: add expects 2 arguments, got 1',
          line: 3,
          column: 24,
        },
      ],
    ],
    [
      'a return type that does not match',
      ['pure func f() -> string = 42'],
      [
        {
          code: 'TC_CLASS_001',
          message: 'type error in m (decl 0): at m.ail:2:27: No instance for Num[string] in scope',
          line: 2,
          column: 27,
        },
      ],
    ],
    [
      'a body of the wrong type',
      ['pure func f(b: bool) -> int = b'],
      [
        {
          code: 'TC_TYPE_001',
          message:
            'type error in m (decl 0): at m.ail:2:31: type mismatch in the function body: expected int, got bool',
          line: 2,
          column: 31,
        },
      ],
    ],
    [
      'an argument of the wrong type',
      ['pure func g(s: string) -> int = 1', 'pure func f() -> int = g(true)'],
      [
        {
          code: 'TC_TYPE_001',
          message:
            'type error in m (decl 1): at m.ail:3:26: type mismatch in argument 1 of g: expected string, got bool',
          line: 3,
          column: 26,
        },
      ],
    ],
    [
      'if branches that differ',
      ['pure func f(b: bool) -> int = if b then 1 else "x"'],
      [
        {
          code: 'TC_CLASS_001',
          message: 'type error in m (decl 0): at m.ail:2:48: No instance for Num[string] in scope',
          line: 2,
          column: 48,
        },
      ],
    ],
    [
      'a non-bool condition',
      ['pure func f() -> int = if 1 then 1 else 2'],
      [
        {
          code: 'TC_CLASS_001',
          message: 'type error in m (decl 0): at m.ail:2:27: No instance for Num[bool] in scope',
          line: 2,
          column: 27,
        },
      ],
    ],
    [
      'an undefined name, with the import to add',
      ['export func main() -> () ! {IO} { println("x") }'],
      [
        {
          code: 'TC_UNDEF_001',
          message: 'type error in m (decl 0): at m.ail:2:35: undefined variable: println',
          line: 2,
          column: 35,
        },
      ],
    ],
    [
      'a missing record field',
      ['pure func f(p: {name: string}) -> int = p.age'],
      [
        {
          code: 'TC_REC_001',
          message: 'type error in m (decl 0): at m.ail:2:43: record has no field "age"',
          line: 2,
          column: 43,
        },
      ],
    ],
    [
      'a constructor pattern with the wrong arity',
      ['pure func f(o: Option[int]) -> int = match o { Some(a, b) => a, None => 0 }'],
      [
        {
          code: 'TC_MATCH_002',
          message:
            'type error in m (decl 0): at m.ail:2:48: constructor Some has 1 field, the pattern gives 2',
          line: 2,
          column: 48,
        },
      ],
    ],
    [
      'Num on a declared type parameter',
      ['pure func add[a](x: a, y: a) -> a = x + y'],
      [
        {
          code: 'TC_CLASS_001',
          message: 'type error in m (decl 0): at m.ail:2:37: No instance for Num[a] in scope',
          line: 2,
          column: 37,
        },
      ],
    ],
    [
      'an unknown type',
      ['pure func f(x: Int) -> int = 1'],
      [
        {
          code: 'TC_UNDEF_002',
          message: 'type error in m (decl 0): at m.ail:2:16: undefined type Int',
          line: 2,
          column: 16,
        },
      ],
    ],
    [
      'one error per declaration, every declaration checked',
      ['pure func f() -> int = "a"', 'pure func g() -> string = 1'],
      [
        {
          code: 'TC_TYPE_001',
          message:
            'type error in m (decl 0): at m.ail:2:24: type mismatch in the function body: expected int, got string',
          line: 2,
          column: 24,
        },
        {
          code: 'TC_CLASS_001',
          message: 'type error in m (decl 1): at m.ail:3:27: No instance for Num[string] in scope',
          line: 3,
          column: 27,
        },
      ],
    ],
    [
      'an unknown std module (IMP010)',
      ['import std/nope (x)'],
      [{ code: 'IMP010', message: 'm.ail:2:1: unknown module std/nope', line: 2, column: 1 }],
    ],
    [
      'an unknown legacy stdlib/std module, named as written (IMP010)',
      ['import stdlib/std/nosuch (x)'],
      [
        {
          code: 'IMP010',
          message: 'm.ail:2:1: unknown module stdlib/std/nosuch',
          line: 2,
          column: 1,
        },
      ],
    ],
    [
      'a name the module does not export (IMP011)',
      ['import std/io (printline)'],
      [
        {
          code: 'IMP011',
          message: 'm.ail:2:16: std/io does not export printline',
          line: 2,
          column: 16,
        },
      ],
    ],
    [
      'a duplicate import (IMP013)',
      ['import std/list (map)', 'import std/option (map)'],
      [
        {
          code: 'IMP013',
          message: 'm.ail:3:20: map is imported from both std/list and std/option',
          line: 3,
          column: 20,
        },
      ],
    ],
    [
      'effect budgets (@limit) are refused by name',
      [IO, 'export func main() -> () ! {IO @limit=2} { println("x") }'],
      [
        {
          code: 'TC_EFF_001',
          message:
            'type error in m (decl 0): at m.ail:3:32: effect budget annotations (@limit / @min) are not supported by the embedded AILANG toolchain',
          line: 3,
          column: 32,
        },
      ],
    ],
  ])('%s', (_name, lines, expected) => {
    expect(diags(lines as string[])).toEqual(expected);
  });

  it('suggests the import for an undefined std name', () => {
    const r = checkSources(
      { 'm.ail': 'module m\nexport func main() -> () ! {IO} { println("x") }' },
      'm.ail',
    );
    expect(r.diagnostics[0]!.suggestion).toBe('import std/io (println)');
  });

  it('reports MOD010 when the header does not match the file path (§1.5 MOD010)', () => {
    const r = checkSources(
      { 'dir/prog.ail': 'module prog\nexport func main() -> int = 1' },
      'dir/prog.ail',
    );
    expect(r.diagnostics).toEqual([
      {
        code: 'MOD010',
        message:
          'dir/prog.ail:1:8: module path "prog" does not match the file path (expected "module dir/prog")',
        file: 'dir/prog.ail',
        line: 1,
        column: 8,
        suggestion: 'change the header to: module dir/prog',
      },
    ]);
  });

  it('reports an unreadable entry as IO_ERROR (§1.4)', () => {
    const r = checkSources({}, 'nope.ail');
    expect([r.phase, r.diagnostics]).toEqual([
      'read',
      [
        {
          code: 'IO_ERROR',
          message: 'open nope.ail: no such file or directory',
          file: 'nope.ail',
          suggestion: 'check the path: it is relative to the worktree root',
        },
      ],
    ]);
  });

  it('reports an import cycle (IMP012)', () => {
    const r = checkSources(
      {
        'a.ail': 'module a\nimport b (f)\nexport pure func g() -> int = 1',
        'b.ail': 'module b\nimport a (g)\nexport pure func f() -> int = 1',
      },
      'a.ail',
    );
    expect(r.diagnostics.map((d) => d.message)).toEqual(['b.ail:2:1: import cycle: a -> b -> a']);
  });
});
