import { checkSources, runProgram } from '../../test/helpers/programs.js';
import { checkHuman } from '../cli/check-output.js';
import { RAW_BUILTINS } from '../stdlib/registry.js';

/**
 * The language gaps the embedded toolchain closes (packages/ailang/README.md "Embedded subset"):
 * each program is ours, each expectation the real toolchain's behaviour or a precise refusal.
 */

const IO = 'import std/io (println)';
const main = (body: string, row = '{IO}'): string =>
  ['module prog', IO, `export func main() -> () ! ${row} {`, body, '}'].join('\n');
const out = (src: string, o: Parameters<typeof runProgram>[1] = {}): string => {
  const r = runProgram(src, o);
  return r.exitCode === 0 ? r.stdout : `exit ${r.exitCode}: ${r.stdout}${r.stderr.trimEnd()}`;
};
const codes = (files: Record<string, string>, entry: string): [string, string][] =>
  checkSources(files, entry).diagnostics.map((d) => [d.code, d.message]);

describe('class 1: raw builtins are callable as builtins list prints them (ailang.md §4)', () => {
  it('runs _io_println and _str_eq without an import', () => {
    expect(out(main('  _io_println(show(_str_eq("ab", "ab")) ++ show(_str_eq("ab", "b")))'))).toBe(
      'truefalse\n',
    );
  });

  it('charges a raw builtin its declared effect', () => {
    const r = codes({ 'm.ail': 'module m\nexport func f() -> () { _io_println("x") }' }, 'm.ail');
    expect(r.map(([c]) => c)).toEqual(['ERROR']);
    expect(r[0]![1]).toContain('Missing effects: IO');
  });

  it('resolves every listed raw builtin by its name in every module', () => {
    const refs = RAW_BUILTINS.map((b, i) => `  let f${i} = ${b.name};`).join('\n');
    const src = `module m\nexport func main() -> () ! {IO, FS, Env, Clock, Net} {\n${refs}\n  ()\n}`;
    expect(codes({ 'm.ail': src }, 'm.ail')).toEqual([]);
  });
});

describe('class 2: a user type shadows the builtin name List in its module', () => {
  it('runs a program declaring type List[a] = Cons(a, List[a]) | Nil', () => {
    const src = [
      'module prog',
      IO,
      'type List[a] = Cons(a, List[a]) | Nil',
      'pure func size[a](xs: List[a]) -> int = match xs { Nil => 0, Cons(_, rest) => 1 + size(rest) }',
      'export func main() -> () ! {IO} { println(show(size(Cons(1, Cons(2, Nil))))) }',
    ].join('\n');
    expect(out(src)).toBe('2\n');
  });

  it('keeps List[T] the builtin list where no type List is declared', () => {
    const src = main('  println(show(total([4, 5])))').replace(
      'export func',
      'pure func total(xs: List[int]) -> int = match xs { [] => 0, [x, ...r] => x + total(r) }\nexport func',
    );
    expect(out(src)).toBe('9\n');
  });
});

describe('class 3: the prelude conversions need no import', () => {
  it('converts with intToFloat and floatToInt', () => {
    expect(out(main('  println(show(intToFloat(3) / 2.0) ++ " " ++ show(floatToInt(-2.7)))'))).toBe(
      '1.5 -2\n',
    );
  });

  it('refuses floatToInt outside int64 instead of picking a machine result', () => {
    expect(out(main('  println(show(floatToInt(1.0e19)))'))).toBe(
      'exit 1: Error: execution failed: floatToInt: 10000000000000000000.0 has no int value',
    );
  });
});

describe('class 4: std/json', () => {
  const J =
    'import std/json (encode, decode, jo, kv, jnum, js, ja, jb, jn, getString, getInt, keys)';
  const prog = (body: string): string =>
    ['module prog', IO, J, 'export func main() -> () ! {IO} {', body, '}'].join('\n');

  it('encodes compactly: integral numbers as ints, short escapes, null', () => {
    expect(
      out(
        prog(
          '  println(encode(jo([kv("a", jnum(1.0)), kv("b", ja([js("x\\n\\"q"), jb(true), jn(), jnum(0.25), jnum(1.0e21)]))])))',
        ),
      ),
    ).toBe('{"a":1,"b":["x\\n\\"q",true,null,0.25,1000000000000000000000]}\n');
  });

  it('decodes into the Json ADT, pairs in source order, and reads fields', () => {
    const body = [
      '  match decode("{\\"name\\": \\"ada\\", \\"age\\": 36.9, \\"name\\": \\"x\\"} trailing") {',
      '    Ok(j) => println(show(getString(j, "name")) ++ " " ++ show(getInt(j, "age")) ++ " " ++ show(keys(j))),',
      '    Err(e) => println(e)',
      '  }',
    ].join('\n');
    expect(out(prog(body))).toBe('Some(ada) Some(36) [name, age, name]\n');
  });

  it('answers Err for text without a JSON value', () => {
    const body =
      '  match decode("  ") { Ok(_) => println("ok"), Err(e) => println(e) };\n  match decode("[1,}") { Ok(_) => println("ok"), Err(e) => println(e) }';
    expect(out(prog(body))).toBe(
      "no JSON value found\ninvalid json: invalid character '}' looking for beginning of value\n",
    );
  });
});

describe('class 5: a keyword is an ordinary module path segment', () => {
  it('runs module tests/match_case from tests/match_case.ail', () => {
    const src = [
      'module tests/match_case',
      IO,
      'export func main() -> () ! {IO} { println("in tests") }',
    ].join('\n');
    expect(out(src)).toBe('in tests\n');
  });
});

describe('class 6: closed record types are exact (the current checker), open ones absorb fields', () => {
  it('refuses extra fields for a closed record parameter with TC_REC_003', () => {
    const src = [
      'module m',
      'pure func nameOf(p: {name: string}) -> string = p.name',
      'export pure func main() -> string = nameOf({name: "ada", age: 36})',
    ].join('\n');
    expect(codes({ 'm.ail': src }, 'm.ail')).toEqual([
      [
        'TC_REC_003',
        'type error in m (decl 1): at m.ail:3:44: type mismatch in argument 1 of nameOf: expected {name: string}, got {name: string, age: a} (field "age" is in only one of the two closed record types, and a closed record type is exact)',
      ],
    ]);
  });

  it('accepts extra fields for an open record parameter', () => {
    const src = main('  println(nameOf({name: "ada", age: 36}))').replace(
      'export func',
      'pure func nameOf(p: {name: string, ...}) -> string = p.name\nexport func',
    );
    expect(out(src)).toBe('ada\n');
  });
});

describe('class 7: the operator-lowering builtins the registry exposes', () => {
  it('computes like the operators', () => {
    expect(
      out(
        main(
          '  println(concat_String("a", "b") ++ show((add_Int(2, 3), div_Int(-7, 2), lt_Float(1.0, 2.0), not_Bool(false), div_Float(0.0, 0.0), eq_String("x", "x"))))',
        ),
      ),
    ).toBe('ab(5, -3, true, true, Inf, true)\n');
  });

  it('refuses a name the embedded registry does not have, precisely', () => {
    expect(
      codes({ 'm.ail': 'module m\nexport pure func f() -> string = show_Int(3)' }, 'm.ail'),
    ).toEqual([
      ['TC_UNDEF_001', 'type error in m (decl 0): at m.ail:2:34: undefined variable: show_Int'],
    ]);
  });
});

describe('class 8: func(…) -> T in type positions', () => {
  it('runs a higher-order function typed with func(int) -> int', () => {
    const src = main('  println(show(twice(\\x. x * 3, 2)))').replace(
      'export func',
      'pure func twice(f: func(int) -> int, x: int) -> int = f(f(x))\nexport func',
    );
    expect(out(src)).toBe('18\n');
  });
});

describe('class 9: std/clock and std/fs exists under the policy', () => {
  const clock = (body: string): string =>
    [
      'module prog',
      IO,
      'import std/clock (now, sleep)',
      'export func main() -> () ! {IO, Clock} {',
      body,
      '}',
    ].join('\n');

  it('reads the clock and sleeps with the Clock capability', () => {
    expect(
      out(clock('  let t = now();\n  sleep(5);\n  println(show(now() >= t + 5))'), {
        policy: { allowed_caps: ['Clock', 'FS', 'IO'] },
      }),
    ).toBe('true\n');
  });

  it('refuses a sleep longer than the run time limit', () => {
    expect(out(clock('  sleep(60000)'), { policy: { allowed_caps: ['Clock', 'FS', 'IO'] } })).toBe(
      "exit 1: Error: execution failed: sleep: 60000 ms is longer than the run's time limit (timeout_ms 8000)",
    );
  });

  it('is refused at admission when the policy does not allow Clock', () => {
    const r = runProgram(clock('  println(show(now()))'));
    expect([
      r.admitted,
      r.exitCode,
      JSON.parse(r.decisionStdout).decision.missing_from_policy,
    ]).toEqual([false, 2, ['Clock']]);
  });

  it('tests existence with _fs_exists (std/fs fileExists wraps it)', () => {
    const src = [
      'module prog',
      IO,
      'export func main() -> () ! {IO, FS} {',
      '  println(show((_fs_exists("data.txt"), _fs_exists("nope.txt"))))',
      '}',
    ].join('\n');
    expect(out(src, { files: { 'data.txt': 'x' } })).toBe('(true, false)\n');
  });
});

describe('class 10: legacy stdlib/std/ import paths run with the real warning', () => {
  const src = [
    'module prog',
    'import stdlib/std/io (println)',
    'export func main() -> () ! {IO} { println("legacy") }',
  ].join('\n');

  it('runs and prints the warning on stderr first', () => {
    const r = runProgram(src);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([
      0,
      'legacy\n',
      "Warning: import path 'stdlib/std/*' is deprecated; use 'std/*' instead\n",
    ]);
  });

  it('checks clean and warns once in human mode', () => {
    const r = checkSources({ 'prog.ail': src }, 'prog.ail');
    expect(checkHuman(r, true)).toEqual({
      exitCode: 0,
      stdout: '\n✓ No errors found!\n',
      stderr: "Warning: import path 'stdlib/std/*' is deprecated; use 'std/*' instead\n",
    });
  });
});

describe("the real toolchain's current std signatures (README: where the docs and it disagree)", () => {
  it('answers getEnv with Result[string, EnvError]: Ok(value), Err(NotFound(message))', () => {
    const src = [
      'module prog',
      IO,
      'import std/env (getEnv, NotFound, NotAllowed)',
      'export func main() -> () ! {IO, Env} {',
      '  match getEnv("LANG") { Ok(v) => println("LANG=" ++ v), Err(_) => println("unset") };',
      '  match getEnv("NOPE") { Ok(v) => println(v), Err(NotFound(m)) => println(m), Err(NotAllowed(m)) => println(m) };',
      '  println(show(_env_getEnv("PATH")))',
      '}',
    ].join('\n');
    expect(out(src, { policy: { allowed_caps: ['Env', 'FS', 'IO'] } })).toBe(
      'LANG=C\nenvironment variable "NOPE" not found\nOk(/usr/bin:/bin)\n',
    );
  });

  it('refuses the documented Option reading of getEnv', () => {
    const src = [
      'module prog',
      IO,
      'import std/env (getEnv)',
      'export func main() -> () ! {IO, Env} {',
      '  match getEnv("LANG") { Some(v) => println(v), None => println("unset") }',
      '}',
    ].join('\n');
    expect(codes({ 'prog.ail': src }, 'prog.ail')).toEqual([
      [
        'TC_TYPE_001',
        'type error in prog (decl 0): at prog.ail:5:26: type mismatch in the pattern: expected Result[string, EnvError], got Option[a]',
      ],
    ]);
  });

  it('answers _str_find in characters, as std/string find composes with substring', () => {
    expect(
      out(
        main(
          '  let s = "héllo wörld";\n  println(show(_str_find(s, "w")) ++ " " ++ _str_slice(s, _str_find(s, "w"), _str_len(s)))',
        ),
      ),
    ).toBe('6 wörld\n');
  });
});
