import { CompileError, type Pos } from './diagnostics.js';

/**
 * The lexer of the embedded AILANG subset (ailang.md §2.1, §5.2): `--` and `//` line comments,
 * string interpolation `${…}`, escapes, int and float literals, operators and keywords. Each
 * token records whether a newline precedes it, because blocks and match arms may be separated
 * by newlines instead of `;` / `,`.
 */

/** Token kinds. */
type TokenKind = 'ident' | 'upper' | 'int' | 'float' | 'string' | 'keyword' | 'op' | 'eof';

/** One piece of a string literal: literal text, or an interpolated expression's source. */
type StringPart = { text: string } | { expr: string; pos: Pos };

/** A lexed token. `nl` is true when a newline separates it from the previous token. */
export interface Token {
  kind: TokenKind;
  text: string;
  pos: Pos;
  nl: boolean;
  /** int literal value */
  int?: bigint;
  /** float literal value */
  float?: number;
  /** string literal parts (interpolation split out) */
  parts?: StringPart[];
}

/** Reserved words (ailang.md §2.1; using one as a name is PAR006). */
const KEYWORDS = new Set([
  'module',
  'import',
  'as',
  'export',
  'pure',
  'func',
  'type',
  'let',
  'letrec',
  'in',
  'if',
  'then',
  'else',
  'match',
  'with',
  'true',
  'false',
  'not',
  'and',
  'or',
  'tests',
  'requires',
  'ensures',
  'deriving',
  'forall',
  'exists',
  'class',
  'instance',
  'effect',
]);

// Longest first so `**` wins over `*`, `::` over `:`, `...` over `.`.
const OPERATORS = [
  '...',
  '->',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '++',
  '::',
  '&&',
  '||',
  '**',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '=',
  '!',
  '\\',
  '.',
  ',',
  ':',
  ';',
  '|',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '@',
];

/** The largest int64, the magnitude bound of an int literal (AILANG ints are Go int64). */
export const INT64_MAX = (1n << 63n) - 1n;

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  '"': '"',
  "'": "'",
  $: '$',
  '0': '\0',
};

/**
 * Splits source text into tokens.
 * @param source the program text
 * @param base position of the first character (interpolated expressions are lexed at their
 *   position inside the enclosing string)
 * @throws CompileError PAR002 (unterminated string), PAR003 (invalid character), PAR004 (bad
 *   number)
 */
export function lex(source: string, base: Pos = { line: 1, column: 1 }): Token[] {
  const tokens: Token[] = [];
  // A UTF-8 byte-order mark some editors write is not part of the program.
  let i = source.startsWith('\uFEFF') ? 1 : 0;
  let line = base.line;
  let column = base.column;
  let sawNewline = false;

  const here = (): Pos => ({ line, column });
  const advance = (n = 1): void => {
    for (let k = 0; k < n; k++) {
      if (source[i] === '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
      i++;
    }
  };
  const push = (t: Omit<Token, 'nl'>): void => {
    tokens.push({ ...t, nl: sawNewline });
    sawNewline = false;
  };

  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '\n') {
      sawNewline = true;
      advance();
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      advance();
      continue;
    }
    if ((ch === '-' && source[i + 1] === '-') || (ch === '/' && source[i + 1] === '/')) {
      while (i < source.length && source[i] !== '\n') advance();
      continue;
    }
    const start = here();
    if (isDigit(ch)) {
      const m = /^(\d+)(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i))!;
      const text = m[0];
      if (isIdentChar(source[i + text.length] ?? '')) {
        throw new CompileError(
          'PAR004',
          `invalid number literal "${text}${source[i + text.length]}"`,
          start,
        );
      }
      if (m[2] !== undefined || m[3] !== undefined) {
        push({ kind: 'float', text, pos: start, float: Number(text) });
      } else {
        const value = BigInt(text);
        if (value > INT64_MAX + 1n) {
          throw new CompileError(
            'PAR004',
            `integer literal ${text} does not fit in 64 bits`,
            start,
          );
        }
        push({ kind: 'int', text, pos: start, int: value });
      }
      advance(text.length);
      continue;
    }
    if (isIdentStart(ch)) {
      let j = i;
      while (j < source.length && isIdentChar(source[j]!)) j++;
      const text = source.slice(i, j);
      const kind: TokenKind = KEYWORDS.has(text) ? 'keyword' : isUpper(ch) ? 'upper' : 'ident';
      push({ kind, text, pos: start });
      advance(j - i);
      continue;
    }
    if (ch === '"') {
      const { parts, end } = lexString(source, i, start);
      const text = source.slice(i, end);
      advance(end - i);
      push({ kind: 'string', text, pos: start, parts });
      continue;
    }
    if (ch === '#') {
      throw new CompileError(
        'PAR007',
        'arrays (#[…]) are not supported by the embedded subset',
        start,
        'use a list [a, b, c] instead',
      );
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op === undefined) {
      throw new CompileError('PAR003', `invalid character ${JSON.stringify(ch)}`, start);
    }
    push({ kind: 'op', text: op, pos: start });
    advance(op.length);
  }
  tokens.push({ kind: 'eof', text: '<end of file>', pos: here(), nl: true });
  return tokens;
}

/**
 * Lexes one string literal starting at the opening quote; interpolations `${…}` are captured
 * as source text with their position (the parser parses them).
 */
function lexString(
  source: string,
  startIndex: number,
  startPos: Pos,
): { parts: StringPart[]; end: number } {
  const parts: StringPart[] = [];
  let text = '';
  let i = startIndex + 1;
  let line = startPos.line;
  let column = startPos.column + 1;
  const step = (): void => {
    if (source[i] === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
    i++;
  };
  while (true) {
    if (i >= source.length || source[i] === '\n') {
      throw new CompileError(
        'PAR002',
        'unterminated string literal',
        startPos,
        'close the string with "',
      );
    }
    const ch = source[i]!;
    if (ch === '"') {
      step();
      break;
    }
    if (ch === '\\') {
      const next = source[i + 1];
      const escPos = { line, column };
      if (next !== undefined && next in SIMPLE_ESCAPES) {
        text += SIMPLE_ESCAPES[next];
        step();
        step();
        continue;
      }
      if (next === 'u' && source[i + 2] === '{') {
        const close = source.indexOf('}', i + 3);
        const hex = close < 0 ? '' : source.slice(i + 3, close);
        if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) {
          throw new CompileError('PAR002', 'invalid \\u{…} escape in string literal', escPos);
        }
        text += String.fromCodePoint(Number.parseInt(hex, 16));
        while (i <= close) step();
        continue;
      }
      throw new CompileError('PAR002', `invalid escape \\${next ?? ''} in string literal`, escPos);
    }
    if (ch === '$' && source[i + 1] === '{') {
      if (text !== '') parts.push({ text });
      text = '';
      step();
      step();
      const exprPos = { line, column };
      const exprStart = i;
      let depth = 1;
      while (i < source.length) {
        const c = source[i]!;
        if (c === '"') {
          // A nested string literal inside the interpolation.
          const nested = lexString(source, i, { line, column });
          while (i < nested.end) step();
          continue;
        }
        if (c === '\n') {
          throw new CompileError('PAR002', 'unterminated ${…} interpolation', exprPos);
        }
        if (c === '{') depth++;
        if (c === '}') {
          depth--;
          if (depth === 0) break;
        }
        step();
      }
      if (i >= source.length)
        throw new CompileError('PAR002', 'unterminated ${…} interpolation', exprPos);
      const expr = source.slice(exprStart, i);
      if (expr.trim() === '') throw new CompileError('PAR001', 'empty ${} interpolation', exprPos);
      parts.push({ expr, pos: exprPos });
      step();
      continue;
    }
    text += ch;
    step();
  }
  if (text !== '' || parts.length === 0) parts.push({ text });
  return { parts, end: i };
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

function isUpper(ch: string): boolean {
  return ch >= 'A' && ch <= 'Z';
}

function isIdentStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || isUpper(ch) || ch === '_';
}

function isIdentChar(ch: string): boolean {
  return isIdentStart(ch) || isDigit(ch);
}
