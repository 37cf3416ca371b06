import type { Expr, FuncDecl, TypeDecl } from './ast.js';
import { CompileError } from './diagnostics.js';
import { parseModule, parseTypeText } from './parser.js';
import { typeExprText } from './print.js';

function body(src: string): Expr {
  const m = parseModule(`module m\nexport func main() -> int ${src}`);
  return (m.decls[0] as FuncDecl).body;
}

/** A compact rendering of an expression tree, for exact comparisons. */
function sexp(e: Expr): string {
  switch (e.k) {
    case 'int':
      return String(e.value);
    case 'float':
      return `${e.value}f`;
    case 'str':
      return JSON.stringify(e.value);
    case 'bool':
      return String(e.value);
    case 'unit':
      return '()';
    case 'var':
      return e.name;
    case 'qvar':
      return `${e.qualifier}.${e.name}`;
    case 'ctor':
      return e.name;
    case 'interp':
      return `(interp ${e.parts.map((p) => (typeof p === 'string' ? JSON.stringify(p) : sexp(p))).join(' ')})`;
    case 'list':
      return `[${e.items.map(sexp).join(' ')}]`;
    case 'tuple':
      return `(tuple ${e.items.map(sexp).join(' ')})`;
    case 'record':
      return `{${e.fields.map((f) => `${f.name}=${sexp(f.value)}`).join(' ')}}`;
    case 'update':
      return `{${sexp(e.base)} | ${e.fields.map((f) => `${f.name}=${sexp(f.value)}`).join(' ')}}`;
    case 'field':
      return `${sexp(e.target)}.${e.name}`;
    case 'call':
      return `(${sexp(e.fn)} ${e.args.map(sexp).join(' ')})`.replace(' )', ')');
    case 'lambda':
      return `(\\${e.params.map((p) => p.name).join(' ')}. ${sexp(e.body)})`;
    case 'let':
      return `(let${e.rec ? 'rec' : ''} ${e.pat.k === 'pvar' ? e.pat.name : e.pat.k} ${sexp(e.value)} ${sexp(e.body)})`;
    case 'seq':
      return `(seq ${sexp(e.first)} ${sexp(e.then)})`;
    case 'if':
      return `(if ${sexp(e.cond)} ${sexp(e.then)} ${sexp(e.else)})`;
    case 'match':
      return `(match ${sexp(e.scrutinee)} ${e.arms.map((a) => `[${a.pat.k}${a.guard ? ` if ${sexp(a.guard)}` : ''} => ${sexp(a.body)}]`).join(' ')})`;
    case 'binop':
      return `(${e.op} ${sexp(e.left)} ${sexp(e.right)})`;
    case 'unop':
      return `(${e.op} ${sexp(e.operand)})`;
  }
}

describe('parseModule', () => {
  // Grammar sketch of ailang.md §2.2 and the program shapes of §2.4.
  it.each([
    [
      'precedence: * over + over == over && (§2.2)',
      '= a + b * c == d && e',
      '(&& (== (+ a (* b c)) d) e)',
    ],
    [':: is right-associative and looser than ++ (§2.2)', '= x :: xs ++ ys', '(:: x (++ xs ys))'],
    ['** is right-associative', '= a ** b ** c', '(** a (** b c))'],
    ['and / or / not words (§2.1)', '= not a and b or c', '(|| (&& (! a) b) c)'],
    ['negative literals fold', '= -3 + -x', '(+ -3 (- x))'],
    [
      'calls, curried calls and field access (§2.1)',
      '= add(3)(7) + r.name',
      '(+ ((add 3) 7) r.name)',
    ],
    ['qualified names (§2.1 import as)', '= L.map(f, xs)', '(L.map f xs)'],
    ['let … in (§2.1)', '= let x = 1 in x + 1', '(let x 1 (+ x 1))'],
    [
      'letrec … in (§2.4 letrec_recursion)',
      '= letrec f = \\n. f(n) in f(1)',
      '(letrec f (\\n. (f n)) (f 1))',
    ],
    ['multi-parameter lambda (§2.1)', '= \\x y. x + y', '(\\x y. (+ x y))'],
    ['zero-parameter lambda', '= \\(). 1', '(\\. 1)'],
    ['anonymous func (§2.4 func_expressions)', '= func(x: int) -> int { x * 2 }', '(\\x. (* x 2))'],
    ['if/then/else (§2.1)', '= if a then 1 else 2', '(if a 1 2)'],
    [
      'list, tuple, unit, record, update (§2.1)',
      '= ([1, 2], (a, b), (), {a: 1, b: 2}, {r | a: 3})',
      '(tuple [1 2] (tuple a b) () {a=1 b=2} {r | a=3})',
    ],
    ['prefix cons ::(x, xs) (§2.2)', '= ::(1, [])', '(:: 1 [])'],
    ['interpolation (§2.1)', '= "x=${show(n)}!"', '(interp "x=" (show n) "!")'],
    [
      'block with ; and newlines (§2.4 block_demo)',
      '{ let x = 1; let y = 2\n  x + y }',
      '(let x 1 (let y 2 (+ x y)))',
    ],
    [
      'block statements separated by newlines (§2.4 block_demo)',
      '{\n  f(1)\n  g(2)\n}',
      '(seq (f 1) (g 2))',
    ],
    ['a "(" on the next line starts a new statement', '{\n  f\n  (1, 2)\n}', '(seq f (tuple 1 2))'],
    ['a "-" on the next line starts a new statement', '{\n  a\n  -1\n}', '(seq a -1)'],
    ['"+" on the next line continues the expression', '{\n  a\n  + 1\n}', '(+ a 1)'],
    ['a let…in statement inside a block', '{ let x = 1 in x }', '(let x 1 x)'],
    [
      'match arms separated by commas (§2.4 adt_tree)',
      '= match t { Leaf(n) => n, Node(l, v, r) => v }',
      '(match t [pctor => n] [pctor => v])',
    ],
    [
      'match arms separated by newlines with guards (§2.4 cli_args_demo)',
      '= match xs {\n  [] => 0\n  [x] if x > 0 => x\n  x :: rest => 1\n}',
      '(match xs [plist => 0] [plist if (> x 0) => x] [pcons => 1])',
    ],
    ['block arm bodies', '= match x { _ => { f(x); 2 } }', '(match x [pwild => (seq (f x) 2)])'],
  ])('%s', (_name, src, expected) => {
    expect(sexp(body(src))).toBe(expected);
  });

  it('parses the module header, imports and declarations (§2.1)', () => {
    const m = parseModule(
      [
        'module examples/demo',
        'import std/io (println, print)',
        'import std/list as L',
        'import std/option',
        'export type Tree[a] = | Leaf(a) | Node(Tree[a], a, Tree[a]) deriving (Eq)',
        'type Person = {name: string, age: int}',
        'pure func id[a](x: a) -> a = x',
        'export func main() -> () ! {IO, FS} tests [(1, 2)] requires { true } { () }',
      ].join('\n'),
    );
    expect(m.name).toBe('examples/demo');
    expect(m.imports.map((i) => [i.path, i.names?.map((n) => n.name) ?? null, i.alias])).toEqual([
      ['std/io', ['println', 'print'], null],
      ['std/list', null, 'L'],
      ['std/option', null, null],
    ]);
    const tree = m.decls[0] as TypeDecl;
    expect([
      tree.name,
      tree.exported,
      tree.tparams,
      tree.ctors?.map((c) => [c.name, c.fields.map((f) => typeExprText(f))]),
    ]).toEqual([
      'Tree',
      true,
      ['a'],
      [
        ['Leaf', ['a']],
        ['Node', ['Tree[a]', 'a', 'Tree[a]']],
      ],
    ]);
    expect(typeExprText((m.decls[1] as TypeDecl).alias!)).toBe('{name: string, age: int}');
    const id = m.decls[2] as FuncDecl;
    expect([id.pure, id.exported, id.tparams, typeExprText(id.ret)]).toEqual([
      true,
      false,
      ['a'],
      'a',
    ]);
    const main = m.decls[3] as FuncDecl;
    expect(main.effects?.labels.map((l) => l.name)).toEqual(['IO', 'FS']);
  });

  it.each([
    ['module tests/parse_case', 'tests/parse_case'],
    ['module type/match/if', 'type/match/if'],
    ['module Tests/Pure', 'Tests/Pure'],
  ])('reads "%s": a keyword is an ordinary module path segment', (header, name) => {
    expect(parseModule(`${header}\nimport tests/helpers (helper)\n`)).toEqual({
      name,
      namePos: { line: 1, column: 8 },
      imports: [
        {
          path: 'tests/helpers',
          names: [{ name: 'helper', pos: { line: 2, column: 23 } }],
          alias: null,
          pos: { line: 2, column: 1 },
        },
      ],
      decls: [],
    });
  });

  it('refuses a func(…) type without a result', () => {
    expect(() => parseTypeText('func(int)')).toThrow(
      new CompileError(
        'PAR001',
        'unexpected end of file: expected "->" and the result type of the func(…) type',
        null,
      ),
    );
  });

  it.each([
    ['((a) -> b ! {e}, [a]) -> [b] ! {e}', '((a) -> b ! {e}, [a]) -> [b] ! {e}'],
    ['a -> b', '(a) -> b'],
    ['() -> string ! {IO}', '() -> string ! {IO}'],
    ['Result[(), string]', 'Result[(), string]'],
    ['List[int]', 'List[int]'],
    ['list[string]', '[string]'],
    ['func(int) -> int', '(int) -> int'],
    ['func(int, string) -> bool ! {IO}', '(int, string) -> bool ! {IO}'],
    ['func() -> [func(a) -> a]', '() -> [(a) -> a]'],
    ['{name: string | r}', '{name: string | r}'],
    ['(int, string)', '(int, string)'],
  ])('parses the type %s (§2.1 types)', (text, printed) => {
    expect(typeExprText(parseTypeText(text).type)).toBe(printed);
  });

  it.each([
    [
      'missing module declaration (MOD014, the current toolchain refuses such files)',
      'func main() -> int = 1',
      'MOD014',
      'missing module declaration: a file must start with "module <path>"',
      [1, 1],
    ],
    [
      'missing return type',
      'module m\nfunc f() { 1 }',
      'PAR001',
      'unexpected "{": expected "->" and the return type',
      [2, 10],
    ],
    [
      'if without else (§2.1)',
      'module m\nfunc f() -> int = if a then 1',
      'PAR001',
      'unexpected end of file: expected "else" (if/then/else always has an else branch)',
      [2, 30],
    ],
    [
      'match … with (PAR019, §2.1)',
      'module m\nfunc f() -> int = match x with { _ => 1 }',
      'PAR019',
      '"match x with { … }" is not AILANG syntax',
      [2, 27],
    ],
    [
      'unknown effect label (§3)',
      'module m\nfunc f() -> int ! {Disk} = 1',
      'PAR005',
      'unknown effect "Disk"',
      [2, 20],
    ],
    [
      'reserved word as a name',
      'module m\nfunc type() -> int = 1',
      'PAR006',
      '"type" is a reserved word and cannot be used as a function name',
      [2, 6],
    ],
    [
      'two statements on one line',
      'module m\nfunc f() -> int { a b }',
      'PAR001',
      'unexpected "b": expected ";", a newline or "}" after the statement',
      [2, 21],
    ],
    [
      'block ending in a let',
      'module m\nfunc f() -> int { let x = 1 }',
      'PAR001',
      'a block must end with an expression, not a let binding',
      [2, 19],
    ],
    [
      'top-level let',
      'module m\nlet x = 1',
      'PAR007',
      'top-level let bindings are not supported by the embedded subset',
      [2, 1],
    ],
    [
      'unclosed call',
      'module m\nfunc f() -> int = g(1, 2',
      'PAR001',
      'unexpected end of file: expected ")" to close the argument list',
      [2, 25],
    ],
  ])('reports %s with code, message and position', (_name, src, code, message, [line, column]) => {
    let caught: unknown;
    try {
      parseModule(src);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CompileError);
    const e = caught as CompileError;
    expect({ code: e.code, message: e.detail, pos: e.pos }).toEqual({
      code,
      message,
      pos: { line, column },
    });
  });
});
