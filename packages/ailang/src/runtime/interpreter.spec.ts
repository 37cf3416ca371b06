import { runProgram } from '../../test/helpers/programs.js';

const IO = 'import std/io (println, print)';
const main = (body: string[], imports: string[] = []): string =>
  [
    'module prog',
    IO,
    ...imports,
    'export func main() -> () ! {IO} {',
    ...body.map((l) => `  ${l}`),
    '}',
  ].join('\n');

describe('Interpreter semantics (ailang.md §2.1, §5.3)', () => {
  it.each([
    [
      'int arithmetic truncates toward zero like Go',
      ['println(show(7 / 2) ++ " " ++ show(-7 / 2) ++ " " ++ show(-7 % 3))'],
      '3 -3 -1\n',
    ],
    ['ints wrap at 64 bits', ['println(show(9223372036854775807 + 1))'], '-9223372036854775808\n'],
    [
      'int literals in float context are floats',
      ['println(show(2 * 3.5) ++ " " ++ show(1 + 0.5))'],
      '7.0 1.5\n',
    ],
    [
      '** on ints and floats',
      ['println(show(2 ** 10) ++ " " ++ show(2.0 ** 0.5))'],
      '1024 1.4142135623730951\n',
    ],
    [
      'string concatenation and interpolation (§2.1)',
      ['let n = 3', 'println("n=${show(n)} s=${"x" ++ "y"} ${n}")'],
      'n=3 s=xy 3\n',
    ],
    [
      'comparisons on strings use code-point order',
      ['println(show("a" < "b") ++ show("é" > "z"))'],
      'truetrue\n',
    ],
    [
      'short-circuit && and ||',
      ['println(show(false && 1 / 0 == 0) ++ show(true || 1 / 0 == 0))'],
      'falsetrue\n',
    ],
    [
      'let-polymorphism at run time',
      ['let id = \\x. x', 'println(show(id(1)) ++ id("a"))'],
      '1a\n',
    ],
    [
      'a polymorphic literal meets a float at run time',
      ['let inc = \\x. x + 1', 'println(show(inc(1)) ++ " " ++ show(inc(2.5)))'],
      '2 3.5\n',
    ],
    [
      'closures capture their environment (§2.4 closures)',
      ['let makeAdder = \\n. \\x. x + n', 'let add10 = makeAdder(10)', 'println(show(add10(5)))'],
      '15\n',
    ],
    [
      'curried and multi-parameter lambdas (§2.1)',
      [
        'let add = \\x y. x + y',
        'let cadd = \\x. \\y. x + y',
        'println(show(add(3, 4) + cadd(3)(4)))',
      ],
      '14\n',
    ],
    [
      'records: literal, update, access, show (§2.1)',
      [
        'let p = {name: "Ann", age: 30}',
        'let q = {p | age: 31}',
        'println(q.name ++ " " ++ show(q.age) ++ " " ++ show(q))',
      ],
      'Ann 31 {age: 31, name: Ann}\n',
    ],
    ['tuples and tuple patterns', ['let (a, b) = (1, "x")', 'println(show(a) ++ b)'], '1x\n'],
    [
      'list literal, cons and ++ (§2.1)',
      ['let xs = 0 :: [1, 2] ++ [3]', 'println(show(xs))'],
      '[0, 1, 2, 3]\n',
    ],
    [
      'match with guards, first match wins',
      [
        'let f = \\n. match n { 0 => "zero", x if x < 0 => "neg", _ => "pos" }',
        'println(f(0) ++ f(-2) ++ f(5))',
      ],
      'zeronegpos\n',
    ],
    [
      'list patterns: [], [x], [a, b], spread, cons (§2.4 cli_args_demo)',
      [
        'let d = \\xs. match xs { [] => "0", [x] => "1", [a, b] => "2", [a, ...rest] => "n" }',
        'println(d([]) ++ d([1]) ++ d([1, 2]) ++ d([1, 2, 3]))',
      ],
      '012n\n',
    ],
    [
      'letrec (§2.4 letrec_recursion)',
      ['letrec fact = \\n. if n == 0 then 1 else n * fact(n - 1)', 'println(show(fact(10)))'],
      '3628800\n',
    ],
    ['print without newline, then println', ['print("a")', 'print("b")', 'println("")'], 'ab\n'],
    [
      'blocks evaluate statements in order',
      ['let x = { print("1"); 2 }', 'println(show(x))'],
      '12\n',
    ],
  ])('%s', (_name, body, stdout) => {
    const r = runProgram(main(body));
    expect({ stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode }).toEqual({
      stdout,
      stderr: '',
      exitCode: 0,
    });
  });

  it('runs ADTs and recursion (§2.4 adt_tree)', () => {
    const src = [
      'module prog',
      IO,
      'type Tree = | Leaf(int) | Node(Tree, int, Tree)',
      'pure func sumTree(t: Tree) -> int = match t { Leaf(n) => n, Node(l, v, r) => sumTree(l) + v + sumTree(r) }',
      'export func main() -> () ! {IO} = let _ = print("sum: ") in println(show(sumTree(Node(Leaf(1), 2, Node(Leaf(3), 4, Leaf(5))))))',
    ].join('\n');
    expect(runProgram(src).stdout).toBe('sum: 15\n');
  });

  it('prints a non-unit result of the entry with show', () => {
    expect(runProgram('module prog\nexport pure func main() -> [int] = [1, 2]').stdout).toBe(
      '[1, 2]\n',
    );
  });

  it('exits with the code given to exit (§2.4 exit_code)', () => {
    const r = runProgram(
      'module prog\nimport std/io (println, exit)\nexport func main() -> () ! {IO} = let _ = println("bye") in exit(42)',
    );
    expect([r.stdout, r.exitCode]).toEqual(['bye\n', 42]);
  });

  it.each([
    [
      'division by zero (RT001)',
      ['println(show(1 / 0))'],
      'Error: execution failed: RT001: division by zero\n',
    ],
    [
      'a non-exhaustive match',
      ['let f = \\n. match n { 0 => "zero" }', 'println(f(1))'],
      'Error: execution failed: non-exhaustive match: no arm matches 1\n',
    ],
    [
      'unwrap of Err',
      ['println(unwrap(Err("boom")))'],
      'Error: execution failed: unwrap: called on Err(boom)\n',
    ],
  ])('stops with exit 1 on %s', (_name, body, stderr) => {
    const r = runProgram(main(body, ['import std/result (unwrap)']));
    expect([r.stderr, r.exitCode]).toEqual([stderr, 1]);
  });

  it('reads stdin line by line, "" at end of input (std/io readLine)', () => {
    const src = main(
      [
        'let a = readLine()',
        'let b = readLine()',
        'let c = readLine()',
        'println(a ++ "|" ++ b ++ "|" ++ c ++ "|")',
      ],
      ['import std/io (readLine)'],
    );
    expect(runProgram(src, { stdin: 'one\r\ntwo\n' }).stdout).toBe('one|two||\n');
  });

  it('passes --args-json to the entry parameters', () => {
    const src =
      'module prog\nexport pure func main(n: int, names: [string]) -> string = show(n * 2) ++ show(names)';
    expect(runProgram(src, { argsJson: '[21, ["a", "b"]]' }).stdout).toBe('42[a, b]\n');
  });

  it('refuses --args-json that does not fit the entry', () => {
    const r = runProgram('module prog\nexport pure func main(n: int) -> int = n', {
      argsJson: '"x"',
    });
    expect([r.stderr, r.exitCode]).toEqual([
      'Error: execution failed: --args-json: expected an integer for parameter "n", got "x"\n',
      1,
    ]);
  });
});
