import type { Expr, FuncDecl, TypeExpr } from '../ast.js';
import { CompileError } from '../diagnostics.js';
import { BASE_TYPES } from '../parser/types.js';
import {
  BOOL,
  CONCAT,
  FLOAT,
  NUM,
  ORD,
  STRING,
  UNIT,
  con,
  listOf,
  prune,
  showType,
  tupleOf,
  type Type,
} from '../types.js';
import { calleeName, Locals, mono, resultPos } from './base.js';
import { convertType } from './convert-type.js';
import { PatternChecker } from './patterns.js';
import { U, exportsHint } from './scope.js';

/**
 * Checks function bodies (ailang.md §2.1, §5.2 Option B): literal and operator types, call
 * arity (TC_ARITY_001) and argument types, return types against annotations, let-polymorphism
 * for let-bound lambdas, records, conditionals and matches.
 */
export class BodyChecker extends PatternChecker {
  checkFunc(d: FuncDecl): void {
    const rigid = new Map<string, Type>();
    const rigidOf = (name: string): Type => ({
      ...con(name, [], `rigid:${d.name}:${name}`),
      rigid: true,
    });
    for (const tp of d.tparams) rigid.set(tp, rigidOf(tp));
    const collect = (te: TypeExpr): void => {
      if (
        te.k === 'tname' &&
        /^[a-z_]/.test(te.name) &&
        !BASE_TYPES.has(te.name) &&
        !rigid.has(te.name)
      ) {
        rigid.set(te.name, rigidOf(te.name));
      }
      if (te.k === 'tname') te.args.forEach(collect);
      if (te.k === 'tlist') collect(te.elem);
      if (te.k === 'ttuple') te.items.forEach(collect);
      if (te.k === 'tfun') {
        te.params.forEach(collect);
        collect(te.ret);
      }
      if (te.k === 'trecord') te.fields.forEach((f) => collect(f.type));
    };
    d.params.forEach((p) => collect(p.type));
    collect(d.ret);
    const locals = new Locals();
    const seen = new Set<string>();
    for (const p of d.params) {
      if (seen.has(p.name))
        throw new CompileError('TC_DUP_001', `parameter ${p.name} is declared twice`, p.pos);
      seen.add(p.name);
      locals.set(p.name, mono(convertType(p.type, this.scope, rigid, 'free')));
    }
    const ret = convertType(d.ret, this.scope, rigid, 'free');
    U.enter();
    const bodyType = this.infer(d.body, locals);
    U.leave();
    this.expect(ret, bodyType, resultPos(d.body), 'the function body');
    this.resolveLiterals();
  }

  infer(e: Expr, locals: Locals): Type {
    switch (e.k) {
      case 'int': {
        const v = U.fresh(NUM);
        this.literals.push({ node: e, type: v });
        return v;
      }
      case 'float':
        return FLOAT;
      case 'str':
        return STRING;
      case 'bool':
        return BOOL;
      case 'unit':
        return UNIT;
      case 'interp':
        for (const part of e.parts) if (typeof part !== 'string') this.infer(part, locals);
        return STRING;
      case 'var':
        return this.lookup(e.name, e.pos, locals);
      case 'qvar': {
        const mod = this.scope.qualified.get(e.qualifier);
        if (!mod)
          this.fail(
            'TC_UNDEF_001',
            `undefined module alias ${e.qualifier}`,
            e.pos,
            `import a module as ${e.qualifier}`,
          );
        const v = mod.values.get(e.name);
        if (!v)
          this.fail('TC_UNDEF_001', `${mod.path} has no export ${e.name}`, e.pos, exportsHint(mod));
        return U.instantiate(v.scheme);
      }
      case 'ctor': {
        const c = this.ctor(e.name, e.qualifier, e.pos);
        return U.instantiate(c.scheme);
      }
      case 'list': {
        const elem = U.fresh();
        for (const item of e.items)
          this.expect(elem, this.infer(item, locals), item.pos, 'a list element');
        return listOf(elem);
      }
      case 'tuple':
        return tupleOf(e.items.map((x) => this.infer(x, locals)));
      case 'record': {
        const fields = new Map<string, Type>();
        for (const f of e.fields) {
          if (fields.has(f.name))
            this.fail('TC_REC_002', `duplicate field "${f.name}" in record`, f.pos);
          fields.set(f.name, this.infer(f.value, locals));
        }
        return { t: 'rec', fields, rest: null };
      }
      case 'update': {
        const base = this.infer(e.base, locals);
        for (const f of e.fields) {
          const ft = this.infer(f.value, locals);
          this.fieldOf(base, f.name, f.pos, ft);
        }
        return base;
      }
      case 'field':
        return this.fieldOf(this.infer(e.target, locals), e.name, e.pos, null);
      case 'call':
        return this.inferCall(e, locals);
      case 'lambda': {
        const inner = locals.child();
        const params: Type[] = [];
        const seen = new Set<string>();
        for (const p of e.params) {
          if (seen.has(p.name) && p.name !== '_')
            this.fail('TC_DUP_001', `parameter ${p.name} is declared twice`, p.pos);
          seen.add(p.name);
          const t = p.type ? convertType(p.type, this.scope, new Map(), 'free') : U.fresh();
          params.push(t);
          inner.set(p.name, mono(t));
        }
        const body = this.infer(e.body, inner);
        if (e.ret)
          this.expect(
            convertType(e.ret, this.scope, new Map(), 'free'),
            body,
            resultPos(e.body),
            'the function body',
          );
        return { t: 'fun', params, ret: body };
      }
      case 'let': {
        const inner = locals.child();
        if (e.rec) {
          const name = (e.pat as { name: string }).name;
          U.enter();
          const self = U.fresh();
          inner.set(name, mono(self));
          const vt = this.infer(e.value, inner);
          this.expect(self, vt, e.value.pos, `letrec ${name}`);
          if (e.type)
            this.expect(convertType(e.type, this.scope, new Map(), 'free'), vt, e.value.pos);
          U.leave();
          inner.set(name, e.value.k === 'lambda' ? U.generalize(vt) : mono(vt));
          return this.infer(e.body, inner);
        }
        U.enter();
        const vt = this.infer(e.value, locals);
        if (e.type)
          this.expect(
            convertType(e.type, this.scope, new Map(), 'free'),
            vt,
            e.value.pos,
            'the let binding',
          );
        U.leave();
        if (e.pat.k === 'pvar' && e.value.k === 'lambda') {
          inner.set(e.pat.name, U.generalize(vt));
        } else {
          this.bindPattern(e.pat, vt, inner, new Set());
        }
        return this.infer(e.body, inner);
      }
      case 'seq':
        this.infer(e.first, locals);
        return this.infer(e.then, locals);
      case 'if': {
        this.expect(BOOL, this.infer(e.cond, locals), e.cond.pos, 'the if condition');
        const t = this.infer(e.then, locals);
        this.expect(t, this.infer(e.else, locals), resultPos(e.else), 'the else branch');
        return t;
      }
      case 'match': {
        const st = this.infer(e.scrutinee, locals);
        const result = U.fresh();
        for (const arm of e.arms) {
          const inner = locals.child();
          this.bindPattern(arm.pat, st, inner, new Set());
          if (arm.guard)
            this.expect(BOOL, this.infer(arm.guard, inner), arm.guard.pos, 'the match guard');
          this.expect(result, this.infer(arm.body, inner), resultPos(arm.body), 'the match arm');
        }
        return result;
      }
      case 'binop':
        return this.inferBinop(e, locals);
      case 'unop': {
        const t = this.infer(e.operand, locals);
        if (e.op === '!') {
          this.expect(BOOL, t, e.operand.pos, 'the operand of !');
          return BOOL;
        }
        const v = U.fresh(NUM);
        this.expect(v, t, e.operand.pos, 'the operand of -');
        return v;
      }
    }
  }

  protected inferCall(e: Extract<Expr, { k: 'call' }>, locals: Locals): Type {
    const fnType = prune(this.infer(e.fn, locals));
    const args = e.args.map((a) => this.infer(a, locals));
    const callee = calleeName(e.fn);
    if (fnType.t === 'fun') {
      if (fnType.params.length !== args.length) {
        const n = fnType.params.length;
        this.fail(
          'TC_ARITY_001',
          `arity mismatch: ${callee} expects ${n} argument${n === 1 ? '' : 's'}, got ${args.length}`,
          e.pos,
          'AILANG has no partial application: pass every argument, or wrap the call in a lambda',
        );
      }
      fnType.params.forEach((p, i) =>
        this.expect(p, args[i]!, e.args[i]!.pos, `argument ${i + 1} of ${callee}`),
      );
      return fnType.ret;
    }
    if (fnType.t === 'var') {
      const ret = U.fresh();
      this.expect({ t: 'fun', params: args, ret }, fnType, e.pos, `the call of ${callee}`);
      return ret;
    }
    this.fail('TC_TYPE_001', `${callee} has type ${showType(fnType)} and cannot be called`, e.pos);
  }

  protected inferBinop(e: Extract<Expr, { k: 'binop' }>, locals: Locals): Type {
    const l = this.infer(e.left, locals);
    const r = this.infer(e.right, locals);
    const what = `the operand of ${e.op}`;
    switch (e.op) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
      case '**': {
        const v = U.fresh(NUM);
        this.expect(v, l, e.left.pos, what);
        this.expect(v, r, e.right.pos, what);
        return v;
      }
      case '++': {
        const v = U.fresh(CONCAT);
        this.expect(v, l, e.left.pos, what);
        this.expect(v, r, e.right.pos, what);
        return v;
      }
      case '::':
        this.expect(listOf(l), r, e.right.pos, 'the list after ::');
        return r;
      case '==':
      case '!=':
        this.expect(l, r, e.right.pos, what);
        return BOOL;
      case '<':
      case '>':
      case '<=':
      case '>=': {
        const v = U.fresh(ORD);
        this.expect(v, l, e.left.pos, what);
        this.expect(v, r, e.right.pos, what);
        return BOOL;
      }
      case '&&':
      case '||':
        this.expect(BOOL, l, e.left.pos, what);
        this.expect(BOOL, r, e.right.pos, what);
        return BOOL;
    }
  }
}
