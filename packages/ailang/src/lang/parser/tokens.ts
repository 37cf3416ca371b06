import { CompileError } from '../diagnostics.js';
import type { Token } from '../lexer.js';

/**
 * The token cursor every layer of the recursive-descent parser builds on (grammar sketch of
 * ailang.md §2.2): look-ahead, expectations with PAR001 errors at the offending token, and the
 * newline sensitivity of blocks and match bodies (ailang.md §2.1 "Newer versions accept newlines
 * instead of `;`"; inside parentheses, brackets and argument lists newlines are insignificant).
 */
export class TokenParser {
  protected i = 0;
  // true inside blocks and match bodies, where a newline may end a statement or an arm
  protected nlSensitive: boolean[] = [false];

  constructor(protected readonly tokens: Token[]) {}

  protected get tok(): Token {
    return this.tokens[this.i]!;
  }

  protected peek(n = 1): Token {
    return this.tokens[Math.min(this.i + n, this.tokens.length - 1)]!;
  }

  protected next(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  protected is(text: string): boolean {
    const t = this.tok;
    return (t.kind === 'op' || t.kind === 'keyword') && t.text === text;
  }

  protected accept(text: string): boolean {
    if (this.is(text)) {
      this.next();
      return true;
    }
    return false;
  }

  protected expect(text: string, context?: string): Token {
    if (this.is(text)) return this.next();
    throw this.unexpected(`"${text}"${context ? ` ${context}` : ''}`);
  }

  protected unexpected(expected: string, suggestion?: string): CompileError {
    const t = this.tok;
    const found = t.kind === 'eof' ? 'end of file' : `"${t.text}"`;
    return new CompileError(
      'PAR001',
      `unexpected ${found}: expected ${expected}`,
      t.pos,
      suggestion,
    );
  }

  protected ident(what = 'a name'): Token {
    const t = this.tok;
    if (t.kind === 'ident') return this.next();
    if (t.kind === 'keyword') {
      throw new CompileError(
        'PAR006',
        `"${t.text}" is a reserved word and cannot be used as ${what}`,
        t.pos,
      );
    }
    throw this.unexpected(what);
  }

  protected upper(what: string): Token {
    if (this.tok.kind === 'upper') return this.next();
    throw this.unexpected(what);
  }

  protected withNl<T>(sensitive: boolean, f: () => T): T {
    this.nlSensitive.push(sensitive);
    try {
      return f();
    } finally {
      this.nlSensitive.pop();
    }
  }

  protected get newlineEnds(): boolean {
    return this.nlSensitive[this.nlSensitive.length - 1]! && this.tok.nl;
  }

  expectEnd(): void {
    if (this.tok.kind !== 'eof') throw this.unexpected('end of input');
  }
}
