import { checkSources } from '../../test/helpers/programs.js';

function effectErrors(lines: string[]) {
  const r = checkSources({ 'm.ail': ['module m', ...lines].join('\n') }, 'm.ail');
  return r.diagnostics.map((d) => ({
    code: d.code,
    message: d.message,
    line: d.line,
    suggestion: d.suggestion,
  }));
}

describe('checkEffects (ailang.md §3 static check)', () => {
  it('names the function, the missing effects and the suggested signature in the real text shape (§1.3 "Effect error text")', () => {
    expect(
      effectErrors([
        'import std/io (println)',
        'export func main() -> () {',
        '  println("x")',
        '}',
      ]),
    ).toEqual([
      {
        code: 'ERROR',
        message: [
          "effect checking failed in m: Effect checking failed for function 'main'",
          '  Function uses effects not declared in signature',
          '',
          '  Missing effects: IO',
          '',
          '  Current signature: func main() -> ()',
          '  Suggested fix:     func main() -> () ! {IO}',
        ].join('\n'),
        line: 3,
        suggestion: 'func main() -> () ! {IO}',
      },
    ]);
  });

  it.each([
    [
      'a partial row gains the missing effects, sorted',
      [
        'import std/io (println)',
        'import std/fs (readFile)',
        'func show2(p: string) -> () ! {IO} = println(readFile(p))',
      ],
      'show2',
      'FS',
      'func show2(p: string) -> () ! {IO}',
      'func show2(p: string) -> () ! {FS, IO}',
    ],
    [
      'a pure function calling an effectful one',
      ['import std/io (println)', 'pure func f(x: int) -> () = println(show(x))'],
      'f',
      'IO',
      'pure func f(x: int) -> ()',
      'func f(x: int) -> () ! {IO}',
    ],
    [
      'effects of a lambda are charged to the function creating it',
      ['import std/io (println)', 'func f() -> (string) -> () = \\s. println(s)'],
      'f',
      'IO',
      'func f() -> (string) -> ()',
      'func f() -> (string) -> () ! {IO}',
    ],
    [
      'an effectful builtin passed as a value is charged',
      [
        'import std/io (println)',
        'import std/list (forEachE)',
        'func f(xs: [string]) -> () = forEachE(println, xs)',
      ],
      'f',
      'IO',
      'func f(xs: [string]) -> ()',
      'func f(xs: [string]) -> () ! {IO}',
    ],
    [
      'calling a declared effectful function charges its row',
      ['import std/io (println)', 'func g() -> () ! {IO} = println("x")', 'func f() -> () = g()'],
      'f',
      'IO',
      'func f() -> ()',
      'func f() -> () ! {IO}',
    ],
  ])('%s', (_name, lines, fn, missing, current, suggested) => {
    const [d] = effectErrors(lines as string[]);
    expect(d!.message).toContain(`Effect checking failed for function '${fn}'`);
    expect(d!.message).toContain(`  Missing effects: ${missing}\n`);
    expect(d!.message).toContain(`  Current signature: ${current}\n`);
    expect(d!.suggestion).toBe(suggested);
  });

  it.each([
    [
      'a call through a local function value adds nothing',
      ['func apply(f: (int) -> int, x: int) -> int = f(x)'],
    ],
    [
      'a local name shadows an effectful builtin',
      ['import std/io (println)', 'pure func f(println: (string) -> ()) -> () = println("x")'],
    ],
    [
      'an effect-polymorphic row accepts what its parameter does',
      ['func each(f: (int) -> () ! {e}, x: int) -> () ! {e} = f(x)'],
    ],
    [
      'declared effects cover the body',
      [
        'import std/io (println)',
        'import std/fs (readFile)',
        'export func main() -> () ! {IO, FS} = println(readFile("a"))',
      ],
    ],
  ])('%s', (_name, lines) => {
    expect(effectErrors(lines as string[])).toEqual([]);
  });

  it('checks an anonymous function against its own declared row', () => {
    const [d] = effectErrors([
      'import std/io (println)',
      'import std/fs (readFile)',
      'export func main() -> () ! {IO, FS} {',
      '  let f = func(p: string) -> () ! {IO} { println(readFile(p)) }',
      '  f("x")',
      '}',
    ]);
    expect([d!.message.split('\n')[0], d!.suggestion]).toEqual([
      "effect checking failed in m: Effect checking failed for function '<anonymous>'",
      'func(…) ! {FS, IO}',
    ]);
  });

  it('does not effect-check a program with type errors', () => {
    const r = checkSources(
      { 'm.ail': 'module m\nimport std/io (println)\nfunc f() -> int = println(1)' },
      'm.ail',
    );
    expect([r.phase, r.diagnostics.map((d) => d.code)]).toEqual(['type', ['TC_CLASS_001']]);
  });
});
