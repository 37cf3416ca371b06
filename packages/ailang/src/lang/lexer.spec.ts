import { CompileError } from './diagnostics.js';
import { lex } from './lexer.js';

const kinds = (src: string): string[] => lex(src).map((t) => `${t.kind}:${t.text}`);

describe('lex', () => {
  // ailang.md §5.2 lexer: comments, interpolation, escapes, int/float, operators, keywords.
  it.each([
    [
      'keywords and names (§2.1)',
      'module hello',
      ['keyword:module', 'ident:hello', 'eof:<end of file>'],
    ],
    ['-- comments are skipped (§2.1)', 'x -- note\ny', ['ident:x', 'ident:y', 'eof:<end of file>']],
    ['// comments are skipped (§2.1)', 'x // note\ny', ['ident:x', 'ident:y', 'eof:<end of file>']],
    [
      'longest operator wins (§2.1 operators)',
      'a ** b ++ c :: d',
      ['ident:a', 'op:**', 'ident:b', 'op:++', 'ident:c', 'op:::', 'ident:d', 'eof:<end of file>'],
    ],
    ['arrows and spread', '-> => ...', ['op:->', 'op:=>', 'op:...', 'eof:<end of file>']],
    [
      'float and int literals',
      '3.25 42 1e3',
      ['float:3.25', 'int:42', 'float:1e3', 'eof:<end of file>'],
    ],
    ['capitalised names are upper', 'Some None', ['upper:Some', 'upper:None', 'eof:<end of file>']],
  ])('%s', (_name, src, expected) => {
    expect(kinds(src)).toEqual(expected);
  });

  it('skips a leading byte-order mark', () => {
    expect(kinds('\uFEFFmodule m')).toEqual(['keyword:module', 'ident:m', 'eof:<end of file>']);
  });

  it('marks a token that follows a newline (blocks separate statements by newlines, §2.1)', () => {
    expect(lex('a\n  b c').map((t) => t.nl)).toEqual([false, true, false, true]);
  });

  it('records 1-based line and column', () => {
    expect(
      lex('x\n  yy')
        .slice(0, 2)
        .map((t) => t.pos),
    ).toEqual([
      { line: 1, column: 1 },
      { line: 2, column: 3 },
    ]);
  });

  it('splits an interpolated string into text and expression parts with their position (§2.1)', () => {
    const [t] = lex('"n=${show(n)}!"');
    expect(t!.parts).toEqual([
      { text: 'n=' },
      { expr: 'show(n)', pos: { line: 1, column: 6 } },
      { text: '!' },
    ]);
  });

  it('decodes escapes', () => {
    const [t] = lex('"a\\n\\t\\"\\\\\\$\\u{1F600}"');
    expect(t!.parts).toEqual([{ text: 'a\n\t"\\$😀' }]);
  });

  it('keeps a nested string inside an interpolation', () => {
    const [t] = lex('"${f("}")}"');
    expect(t!.parts).toEqual([{ expr: 'f("}")', pos: { line: 1, column: 4 } }]);
  });

  it('gives int literals their exact value', () => {
    expect(lex('9223372036854775807')[0]!.int).toBe(9223372036854775807n);
  });

  it.each([
    ['unterminated string', '"abc', 'PAR002', { line: 1, column: 1 }],
    ['string broken by a newline', '"ab\nc"', 'PAR002', { line: 1, column: 1 }],
    ['invalid escape', '"\\q"', 'PAR002', { line: 1, column: 2 }],
    ['invalid character', 'a ` b', 'PAR003', { line: 1, column: 3 }],
    ['number glued to a name', '12abc', 'PAR004', { line: 1, column: 1 }],
    ['int beyond 64 bits', '99999999999999999999', 'PAR004', { line: 1, column: 1 }],
    ['arrays are refused by name (§5.4)', 'x = #[1]', 'PAR007', { line: 1, column: 5 }],
  ])('refuses %s', (_name, src, code, pos) => {
    let caught: unknown;
    try {
      lex(src);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CompileError);
    expect({ code: (caught as CompileError).code, pos: (caught as CompileError).pos }).toEqual({
      code,
      pos,
    });
  });
});
