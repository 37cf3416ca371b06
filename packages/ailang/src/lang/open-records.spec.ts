import { checkSources, runProgram } from '../../test/helpers/programs.js';

/**
 * Open record types `{f: T, ...}` and `{f: T | r}` are row-polymorphic (ailang.md §2.1
 * "Records"): each use of a function instantiates a fresh row, so one call does not fix the
 * fields later calls may pass.
 */

const codes = (src: string): [string, string][] =>
  checkSources({ 'm.ail': src }, 'm.ail').diagnostics.map((d) => [d.code, d.message]);
const out = (src: string): string => {
  const r = runProgram(src);
  return r.exitCode === 0 ? r.stdout : `exit ${r.exitCode}: ${r.stdout}${r.stderr.trimEnd()}`;
};

describe('open records are polymorphic in their row', () => {
  it('accepts `{name: string, ...}` with different extra fields at each call', () => {
    const src = [
      'module m',
      'import std/io (println)',
      'func greet(p: {name: string, ...}) -> string = "hi " ++ p.name',
      'export func main() -> () ! {IO} {',
      '  println(greet({name: "a", age: 1}));',
      '  println(greet({name: "b"}));',
      '  println(greet({name: "c", tags: ["x"], ok: true}))',
      '}',
    ].join('\n');
    expect(out(src)).toBe('hi a\nhi b\nhi c\n');
  });

  it('accepts a `...` row that comes from a type alias', () => {
    const src = [
      'module m',
      'import std/io (println)',
      'type Named = {name: string, ...}',
      'func tag(p: Named) -> string = "<" ++ p.name ++ ">"',
      'export func main() -> () ! {IO} {',
      '  println(tag({name: "x", size: 2}) ++ tag({name: "y"}))',
      '}',
    ].join('\n');
    expect(out(src)).toBe('<x><y>\n');
  });

  it('accepts `{name: string | r}` with different rows at each call', () => {
    const src = [
      'module m',
      'pure func nameOf(p: {name: string | r}) -> string = p.name',
      'export pure func main() -> string = nameOf({name: "a", n: 1}) ++ nameOf({name: "b"})',
    ].join('\n');
    expect(codes(src)).toEqual([]);
  });

  it('reports a row bound by an earlier use without calling the records closed', () => {
    const src = [
      'module m',
      'pure func both(a: {name: string | r}, b: {name: string | r}) -> string = a.name ++ b.name',
      'export pure func main() -> string = both({name: "a", n: 1}, {name: "b"})',
    ].join('\n');
    expect(codes(src)).toEqual([
      [
        'TC_REC_003',
        'type error in m (decl 1): at m.ail:3:61: type mismatch in argument 2 of both: expected {name: string, n: a}, got {name: string} (field "n" is in only one of the two record types: the row of an open record type was already bound to other fields by an earlier use in the same scope)',
      ],
    ]);
  });
});
