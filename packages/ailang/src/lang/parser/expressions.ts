import type { BinOp, Expr, Pattern, TypeExpr } from '../ast.js';
import { CompileError } from '../diagnostics.js';
import { lex, type Token } from '../lexer.js';
import { PatternParser } from './patterns.js';

// Binary operator precedence, loosest first; `::`, `++` and `**` associate to the right.
const PRECEDENCE: { ops: string[]; right: boolean }[] = [
  { ops: ['||', 'or'], right: false },
  { ops: ['&&', 'and'], right: false },
  { ops: ['==', '!='], right: false },
  { ops: ['<', '>', '<=', '>='], right: false },
  { ops: ['::'], right: true },
  { ops: ['++'], right: true },
  { ops: ['+', '-'], right: false },
  { ops: ['*', '/', '%'], right: false },
  { ops: ['**'], right: true },
];

const WORD_OPS: Record<string, BinOp> = { or: '||', and: '&&' };
/** A `let` / `letrec` binding before its body: the pattern, its annotation and value. */
export interface LetBinding {
  pat: Pattern;
  type: TypeExpr | null;
  value: Expr;
  rec: boolean;
}

/**
 * Expressions (ailang.md §2.2 `expr`, `binary`, `postfix`, `primary`): operator precedence,
 * calls and field access, literals, interpolated strings, `if`, `let … in`. Brace forms, lambdas
 * and `match` come from the layer above (blocks.ts).
 */
export abstract class ExprParser extends PatternParser {
  /** A parser over the tokens of an interpolated `${…}` expression. */
  protected abstract fork(tokens: Token[]): ExprParser;
  protected abstract braceExpr(): Expr;
  protected abstract lambda(): Expr;
  protected abstract anonFunc(): Expr;
  protected abstract matchExpr(): Expr;
  protected abstract letBinding(): LetBinding;

  expr(): Expr {
    return this.binary(0);
  }

  protected binary(level: number): Expr {
    if (level >= PRECEDENCE.length) return this.unary();
    const { ops, right } = PRECEDENCE[level]!;
    let left = this.binary(level + 1);
    while (true) {
      const t = this.tok;
      const isOp = (t.kind === 'op' || t.kind === 'keyword') && ops.includes(t.text);
      if (!isOp) return left;
      // A line that starts with "-" is a new statement, not a subtraction.
      if (t.text === '-' && this.newlineEnds) return left;
      this.next();
      const op = (WORD_OPS[t.text] ?? t.text) as BinOp;
      const rhs = right ? this.binary(level) : this.binary(level + 1);
      left = { k: 'binop', op, left, right: rhs, pos: t.pos };
      if (right) return left;
    }
  }

  protected unary(): Expr {
    const t = this.tok;
    if (this.is('-')) {
      this.next();
      const operand = this.unary();
      if (operand.k === 'int') return { ...operand, value: -operand.value, pos: t.pos };
      if (operand.k === 'float') return { ...operand, value: -operand.value, pos: t.pos };
      return { k: 'unop', op: '-', operand, pos: t.pos };
    }
    if (this.is('!') || this.is('not')) {
      this.next();
      return { k: 'unop', op: '!', operand: this.unary(), pos: t.pos };
    }
    return this.postfix();
  }

  protected postfix(): Expr {
    let e = this.primary();
    while (true) {
      if (this.is('(') && !this.newlineEnds) {
        const pos = this.next().pos;
        const args: Expr[] = [];
        this.withNl(false, () => {
          if (!this.is(')')) {
            do {
              if (this.is(')')) break;
              args.push(this.expr());
            } while (this.accept(','));
          }
          this.expect(')', 'to close the argument list');
        });
        e = {
          k: 'call',
          fn: e,
          args,
          pos: e.k === 'var' || e.k === 'ctor' || e.k === 'qvar' ? e.pos : pos,
        };
        continue;
      }
      if (this.is('.') && this.peek().kind === 'ident') {
        this.next();
        const f = this.next();
        e = { k: 'field', target: e, name: f.text, pos: f.pos };
        continue;
      }
      return e;
    }
  }

  protected primary(): Expr {
    const t = this.tok;
    const pos = t.pos;
    switch (t.kind) {
      case 'int': {
        this.next();
        return { k: 'int', value: t.int!, pos };
      }
      case 'float':
        this.next();
        return { k: 'float', value: t.float!, pos };
      case 'string':
        this.next();
        return this.stringExpr(t);
      case 'ident':
        this.next();
        return { k: 'var', name: t.text, pos };
      case 'upper': {
        this.next();
        if (this.is('.') && (this.peek().kind === 'ident' || this.peek().kind === 'upper')) {
          this.next();
          const member = this.next();
          if (member.kind === 'upper')
            return { k: 'ctor', name: member.text, qualifier: t.text, pos };
          return { k: 'qvar', qualifier: t.text, name: member.text, pos };
        }
        return { k: 'ctor', name: t.text, qualifier: null, pos };
      }
      case 'keyword':
        return this.keywordExpr(t);
      case 'op':
        return this.opExpr(t);
      default:
        throw this.unexpected('an expression');
    }
  }

  protected stringExpr(t: Token): Expr {
    const parts = t.parts!;
    if (parts.length === 1 && 'text' in parts[0]!)
      return { k: 'str', value: parts[0].text, pos: t.pos };
    const out: (string | Expr)[] = [];
    for (const part of parts) {
      if ('text' in part) {
        out.push(part.text);
      } else {
        const sub = this.fork(lex(part.expr, part.pos));
        const e = sub.expr();
        sub.expectEnd();
        out.push(e);
      }
    }
    return { k: 'interp', parts: out, pos: t.pos };
  }

  protected keywordExpr(t: Token): Expr {
    const pos = t.pos;
    switch (t.text) {
      case 'true':
      case 'false':
        this.next();
        return { k: 'bool', value: t.text === 'true', pos };
      case 'if': {
        this.next();
        const cond = this.withNl(false, () => this.expr());
        this.expect('then', 'after the if condition');
        const thenE = this.expr();
        if (!this.is('else')) {
          throw this.unexpected('"else" (if/then/else always has an else branch)');
        }
        this.next();
        const elseE = this.expr();
        return { k: 'if', cond, then: thenE, else: elseE, pos };
      }
      case 'let':
      case 'letrec': {
        const binding = this.letBinding();
        if (!this.is('in')) throw this.unexpected('"in" after the let binding');
        this.next();
        const body = this.expr();
        return { k: 'let', ...binding, body, pos };
      }
      case 'match':
        return this.matchExpr();
      case 'func':
        return this.anonFunc();
      default:
        if (t.text === 'not') return this.unary();
        throw new CompileError(
          'PAR006',
          `"${t.text}" is a reserved word and cannot start an expression`,
          pos,
        );
    }
  }

  protected opExpr(t: Token): Expr {
    const pos = t.pos;
    switch (t.text) {
      case '(': {
        this.next();
        return this.withNl(false, () => {
          if (this.accept(')')) return { k: 'unit', pos } as Expr;
          const first = this.expr();
          if (this.accept(')')) return first;
          const items = [first];
          while (this.accept(',')) {
            if (this.is(')')) break;
            items.push(this.expr());
          }
          this.expect(')', 'to close the tuple');
          return { k: 'tuple', items, pos } as Expr;
        });
      }
      case '[': {
        this.next();
        return this.withNl(false, () => {
          const items: Expr[] = [];
          while (!this.is(']')) {
            items.push(this.expr());
            if (!this.accept(',')) break;
          }
          this.expect(']', 'to close the list');
          return { k: 'list', items, pos } as Expr;
        });
      }
      case '{':
        return this.braceExpr();
      case '\\':
        return this.lambda();
      case '::': {
        // prefix cons ::(x, xs)
        this.next();
        this.expect('(');
        const [head, tail] = this.withNl(false, () => {
          const h = this.expr();
          this.expect(',');
          const tl = this.expr();
          this.expect(')');
          return [h, tl] as const;
        });
        return { k: 'binop', op: '::', left: head, right: tail, pos };
      }
    }
    throw this.unexpected('an expression');
  }
}
