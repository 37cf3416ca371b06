import type { Arm, EffectRow, Expr, Param, Pattern, TypeExpr } from '../ast.js';
import { CompileError, type Pos } from '../diagnostics.js';
import { ExprParser, type LetBinding } from './expressions.js';

/**
 * Brace forms, bindings and functions as values (ailang.md §2.1 "Expressions", §2.2 `block`,
 * `stmt`, `arm`): record literals and updates, blocks desugared into `let` / `seq` chains,
 * `match` arms, lambdas `\\x y. e` and anonymous `func(…) -> T { … }`.
 */
export abstract class BlockParser extends ExprParser {
  protected braceExpr(): Expr {
    const pos = this.tok.pos;
    const a = this.peek(1);
    const b = this.peek(2);
    if (a.kind === 'op' && a.text === '}') {
      this.next();
      this.next();
      return { k: 'record', fields: [], pos };
    }
    if (a.kind === 'ident' && b.kind === 'op' && b.text === ':') {
      this.next();
      return this.withNl(false, () => ({ k: 'record', fields: this.recordFields(), pos }) as Expr);
    }
    if (a.kind === 'ident' && b.kind === 'op' && b.text === '|') {
      this.next();
      const baseTok = this.next();
      this.next();
      return this.withNl(false, () => {
        const fields = this.recordFields();
        return {
          k: 'update',
          base: { k: 'var', name: baseTok.text, pos: baseTok.pos },
          fields,
          pos,
        } as Expr;
      });
    }
    return this.block();
  }

  protected recordFields(): { name: string; value: Expr; pos: Pos }[] {
    const fields: { name: string; value: Expr; pos: Pos }[] = [];
    while (!this.is('}')) {
      const f = this.ident('a field name');
      this.expect(':', `after field "${f.text}"`);
      fields.push({ name: f.text, value: this.expr(), pos: f.pos });
      if (!this.accept(',')) break;
    }
    this.expect('}', 'to close the record');
    return fields;
  }

  protected letBinding(): LetBinding {
    const rec = this.next().text === 'letrec';
    let pat: Pattern;
    if (rec) {
      const nameTok = this.ident('a name');
      pat = { k: 'pvar', name: nameTok.text, pos: nameTok.pos };
    } else {
      pat = this.pattern();
    }
    let type: TypeExpr | null = null;
    if (this.accept(':')) type = this.type();
    this.expect('=', 'in the let binding');
    const value = this.expr();
    return { pat, type, value, rec };
  }

  /** A block `{ stmt; stmt \n expr }` desugared into nested let / seq nodes. */
  block(): Expr {
    const pos = this.expect('{').pos;
    type Item = { let: LetBinding; pos: Pos } | { expr: Expr };
    const items: Item[] = [];
    this.withNl(true, () => {
      while (!this.is('}')) {
        if (this.is('let') || this.is('letrec')) {
          const lpos = this.tok.pos;
          const binding = this.letBinding();
          if (this.accept('in')) {
            const body = this.expr();
            items.push({ expr: { k: 'let', ...binding, body, pos: lpos } });
          } else {
            items.push({ let: binding, pos: lpos });
          }
        } else {
          items.push({ expr: this.expr() });
        }
        if (this.accept(';')) {
          while (this.accept(';'));
          continue;
        }
        if (this.is('}')) break;
        if (!this.tok.nl) throw this.unexpected('";", a newline or "}" after the statement');
      }
      this.expect('}', 'to close the block');
    });
    if (items.length === 0) {
      throw new CompileError(
        'PAR001',
        'empty block: a block must end with an expression',
        pos,
        'write () for a unit value',
      );
    }
    const last = items[items.length - 1]!;
    if (!('expr' in last)) {
      throw new CompileError(
        'PAR001',
        'a block must end with an expression, not a let binding',
        last.pos,
        'add the value of the block after the let, e.g. ()',
      );
    }
    let acc = last.expr;
    for (let k = items.length - 2; k >= 0; k--) {
      const item = items[k]!;
      if ('expr' in item) acc = { k: 'seq', first: item.expr, then: acc, pos: item.expr.pos };
      else acc = { k: 'let', ...item.let, body: acc, pos: item.pos };
    }
    return acc;
  }

  protected matchExpr(): Expr {
    const pos = this.next().pos;
    const scrutinee = this.withNl(false, () => this.expr());
    if (this.is('with')) {
      throw new CompileError(
        'PAR019',
        '"match x with { … }" is not AILANG syntax',
        this.tok.pos,
        'write match x { pattern => expr, … }',
      );
    }
    this.expect('{', 'to open the match arms');
    const arms: Arm[] = [];
    this.withNl(true, () => {
      while (!this.is('}')) {
        const pat = this.pattern();
        let guard: Expr | null = null;
        if (this.accept('if')) guard = this.withNl(false, () => this.expr());
        this.expect('=>', 'after the pattern');
        const body = this.expr();
        arms.push({ pat, guard, body });
        if (this.accept(',')) continue;
        if (this.is('}')) break;
        if (!this.tok.nl) throw this.unexpected('",", a newline or "}" after the match arm');
      }
      this.expect('}', 'to close the match');
    });
    if (arms.length === 0) throw new CompileError('PAR001', 'a match needs at least one arm', pos);
    return { k: 'match', scrutinee, arms, pos };
  }

  protected lambda(): Expr {
    const pos = this.next().pos;
    const params: Param[] = [];
    if (this.is('(') && this.peek().text === ')') {
      this.next();
      this.next();
    } else {
      while (!this.is('.')) {
        const t = this.tok;
        if (t.kind !== 'ident') throw this.unexpected('a lambda parameter or "."');
        this.next();
        params.push({ name: t.text, type: null, pos: t.pos });
      }
      if (params.length === 0) throw this.unexpected('a lambda parameter');
    }
    this.expect('.', 'after the lambda parameters');
    const body = this.expr();
    return { k: 'lambda', params, ret: null, effects: null, body, pos };
  }

  protected anonFunc(): Expr {
    const pos = this.next().pos;
    this.expect('(', 'to open the parameter list');
    const params: Param[] = [];
    this.withNl(false, () => {
      if (!this.is(')')) {
        do {
          const p = this.ident('a parameter name');
          let type: TypeExpr | null = null;
          if (this.accept(':')) type = this.type();
          params.push({ name: p.text, type, pos: p.pos });
        } while (this.accept(','));
      }
      this.expect(')', 'to close the parameter list');
    });
    let ret: TypeExpr | null = null;
    let effects: EffectRow | null = null;
    if (this.accept('->')) {
      ret = this.typeNoArrowRow();
      if (this.accept('!')) effects = this.effectRow();
    }
    const body = this.is('{')
      ? this.block()
      : (this.expect('=', 'or "{" to start the function body'), this.expr());
    return { k: 'lambda', params, ret, effects, body, pos };
  }
}
