import type { Pattern } from '../ast.js';
import { BOOL, FLOAT, NUM, STRING, UNIT, listOf, prune, tupleOf, type Type } from '../types.js';
import { CheckerBase, mono, type Locals } from './base.js';
import { U } from './scope.js';

/**
 * Pattern typing (ailang.md §2.2 `pat`): each pattern constrains the scrutinee's type and binds
 * its variables, monomorphically, once per pattern (TC_DUP_001 on a repeat).
 */
export abstract class PatternChecker extends CheckerBase {
  protected bindPattern(p: Pattern, t: Type, locals: Locals, bound: Set<string>): void {
    switch (p.k) {
      case 'pwild':
        return;
      case 'pvar':
        if (bound.has(p.name))
          this.fail('TC_DUP_001', `${p.name} is bound twice in one pattern`, p.pos);
        bound.add(p.name);
        locals.set(p.name, mono(t));
        return;
      case 'pint': {
        const v = U.fresh(NUM);
        this.literals.push({ node: p, type: v });
        this.expect(t, v, p.pos, 'the pattern');
        return;
      }
      case 'pfloat':
        return this.expect(t, FLOAT, p.pos, 'the pattern');
      case 'pstr':
        return this.expect(t, STRING, p.pos, 'the pattern');
      case 'pbool':
        return this.expect(t, BOOL, p.pos, 'the pattern');
      case 'punit':
        return this.expect(t, UNIT, p.pos, 'the pattern');
      case 'pctor': {
        const c = this.ctor(p.name, null, p.pos);
        if (c.arity !== p.args.length) {
          this.fail(
            'TC_MATCH_002',
            `constructor ${c.name} has ${c.arity} field${c.arity === 1 ? '' : 's'}, the pattern gives ${p.args.length}`,
            p.pos,
          );
        }
        const ct = prune(U.instantiate(c.scheme));
        const result = ct.t === 'fun' ? ct.ret : ct;
        this.expect(t, result, p.pos, 'the pattern');
        if (ct.t === 'fun')
          ct.params.forEach((ft, i) => this.bindPattern(p.args[i]!, ft, locals, bound));
        return;
      }
      case 'plist': {
        const elem = U.fresh();
        this.expect(t, listOf(elem), p.pos, 'the list pattern');
        for (const item of p.items) this.bindPattern(item, elem, locals, bound);
        if (p.rest) this.bindPattern(p.rest, listOf(elem), locals, bound);
        return;
      }
      case 'pcons': {
        const elem = U.fresh();
        this.expect(t, listOf(elem), p.pos, 'the cons pattern');
        this.bindPattern(p.head, elem, locals, bound);
        this.bindPattern(p.tail, listOf(elem), locals, bound);
        return;
      }
      case 'ptuple': {
        const items = p.items.map(() => U.fresh() as Type);
        this.expect(t, tupleOf(items), p.pos, 'the tuple pattern');
        p.items.forEach((item, i) => this.bindPattern(item, items[i]!, locals, bound));
        return;
      }
      case 'precord': {
        const fields = new Map<string, Type>();
        for (const f of p.fields) fields.set(f.name, U.fresh());
        this.expect(
          t,
          { t: 'rec', fields, rest: p.open ? U.fresh() : null },
          p.pos,
          'the record pattern',
        );
        for (const f of p.fields) this.bindPattern(f.pat, fields.get(f.name)!, locals, bound);
        return;
      }
    }
  }
}
