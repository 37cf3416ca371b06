import type { Expr, FuncDecl, Pattern } from '../lang/ast.js';
import type { CtorInfo, ModuleInterface, ValueInfo } from '../lang/checker/scope.js';
import type { LoadedModule } from '../lang/program.js';
import { IMPLS } from '../stdlib/impl.js';
import type { RuntimeHost } from './host.js';
import { arith, ordered } from './operators.js';
import {
  AilRuntimeError,
  Env,
  UNIT_V,
  isList,
  listFrom,
  listItems,
  show,
  valuesEqual,
  wrap,
  type BuiltinFn,
  type Closure,
  type ListValue,
  type RuntimeApi,
  type Value,
} from './values.js';

/**
 * The tree-walking interpreter of the embedded subset. Calls in tail position are trampolined
 * (an endless tail-recursive loop runs until the supervisor's timeout instead of overflowing);
 * other calls count against the recursion ceiling (RT_REC_003, ailang.md §1.5
 * `--max-recursion-depth`, default 10000). Evaluation is deterministic: no clock, no randomness.
 */

class TailCall {
  constructor(
    readonly fn: Closure,
    readonly args: Value[],
  ) {}
}

interface ModuleRuntime {
  env: Env;
  exports: Map<string, Value>;
}

/** The message of RT_REC_003 (the real runtime's wording, ailang.md §1.5). */
function recursionLimitMessage(limit: number): string {
  return `RT_REC_003: max recursion depth ${limit} exceeded. Try a smaller input, an iterative std/list helper such as foldl or map instead of hand-rolled recursion, or raise the ceiling with --max-recursion-depth`;
}

/** Runs checked programs. */
export class Interpreter implements RuntimeApi {
  private depth = 0;
  private readonly modules = new Map<string, ModuleRuntime>();
  private readonly builtins = new Map<string, BuiltinFn>();

  constructor(
    readonly host: RuntimeHost,
    /** the recursion ceiling (AILANG_MAX_RECURSION_DEPTH); passed in so worker code never loads the contracts package */
    private readonly maxDepth: number,
  ) {}

  /**
   * Links checked modules (dependency order, as checkProgram returns them).
   * @throws Error when a module was not type-checked
   */
  load(modules: readonly LoadedModule[]): void {
    for (const m of modules) {
      if (m.checked === null) throw new Error(`module ${m.path} was not checked`);
      const env = new Env();
      const rt: ModuleRuntime = { env, exports: new Map() };
      const scope = m.checked.scope;
      for (const [name, info] of scope.values) {
        if (info.kind === 'func' && info.module === m.path) continue;
        env.set(name, this.valueOf(info));
      }
      for (const d of m.ast.decls) {
        if (d.kind !== 'func') continue;
        const fn: Closure = {
          k: 'closure',
          name: d.name,
          params: d.params.map((p) => p.name),
          body: d.body,
          env,
        };
        env.set(d.name, fn);
      }
      for (const name of m.checked.iface.values.keys()) rt.exports.set(name, env.get(name)!);
      this.modules.set(m.path, rt);
      for (const [alias, iface] of scope.qualified)
        env.set(`${alias}.`, this.qualifiedTable(iface));
    }
  }

  private qualifiedTable(iface: ModuleInterface): Value {
    // Stored under "<alias>." (not a valid identifier) as a record of the module's exports.
    const fields = new Map<string, Value>();
    for (const [name, info] of iface.values) fields.set(name, this.valueOf(info));
    return { k: 'record', fields };
  }

  private valueOf(info: ValueInfo): Value {
    if (info.kind === 'builtin') return this.builtin(info.builtin!.name);
    if (info.kind === 'ctor') return ctorValue(info.ctor!);
    const mod = this.modules.get(info.module);
    const v = mod?.exports.get(info.name) ?? mod?.env.get(info.name);
    if (v === undefined) throw new Error(`function ${info.module}.${info.name} is not linked`);
    return v;
  }

  private builtin(name: string): BuiltinFn {
    let fn = this.builtins.get(name);
    if (!fn) {
      const impl = IMPLS.get(name);
      if (!impl) throw new Error(`builtin ${name} has no implementation`);
      fn = { k: 'builtin', name, arity: impl.length, impl };
      this.builtins.set(name, fn);
    }
    return fn;
  }

  /** A module-level function by name (entry lookup). */
  global(module: string, name: string): Value | undefined {
    return this.modules.get(module)?.env.get(name);
  }

  /**
   * Calls the entry function with arguments.
   * @throws AilRuntimeError for runtime failures (stack exhaustion included), ExitRequest for exit(n)
   */
  runEntry(module: string, decl: FuncDecl, args: Value[]): Value {
    const fn = this.global(module, decl.name);
    if (fn === undefined) throw new AilRuntimeError(`entry function ${decl.name} is not defined`);
    try {
      return this.apply(fn, args);
    } catch (e) {
      if (e instanceof RangeError) {
        throw new AilRuntimeError(
          /call stack/i.test(e.message)
            ? `${recursionLimitMessage(this.maxDepth)} (the interpreter's stack ran out first)`
            : `internal limit reached: ${e.message}`,
        );
      }
      throw e;
    }
  }

  apply(fn: Value, args: Value[]): Value {
    if (++this.depth > this.maxDepth) {
      this.depth--;
      throw new AilRuntimeError(recursionLimitMessage(this.maxDepth));
    }
    try {
      let f = fn;
      let a = args;
      while (true) {
        if (typeof f !== 'object' || (f.k !== 'closure' && f.k !== 'builtin')) {
          throw new AilRuntimeError(`cannot call ${show(f)}: it is not a function`);
        }
        if (f.k === 'builtin') {
          return f.impl(a, this);
        }
        if (f.params.length !== a.length) {
          throw new AilRuntimeError(
            `${f.name} expects ${f.params.length} arguments, got ${a.length}`,
          );
        }
        const env = new Env(f.env);
        f.params.forEach((p, i) => env.set(p, a[i]!));
        const r = this.eval(f.body, env, true);
        if (r instanceof TailCall) {
          f = r.fn;
          a = r.args;
          continue;
        }
        return r;
      }
    } finally {
      this.depth--;
    }
  }

  private value(e: Expr, env: Env): Value {
    return this.eval(e, env, false) as Value;
  }

  private eval(e: Expr, env: Env, tail: boolean): Value | TailCall {
    switch (e.k) {
      case 'int':
        return e.asFloat ? Number(e.value) : e.value;
      case 'float':
      case 'str':
      case 'bool':
        return e.value;
      case 'unit':
        return UNIT_V;
      case 'interp':
        return e.parts
          .map((p) => (typeof p === 'string' ? p : textOf(this.value(p, env))))
          .join('');
      case 'var': {
        const v = env.get(e.name);
        if (v === undefined) throw new AilRuntimeError(`undefined variable ${e.name}`);
        return v;
      }
      case 'qvar':
      case 'ctor': {
        if (e.k === 'ctor' && e.qualifier === null) {
          const v = env.get(e.name);
          if (v === undefined) throw new AilRuntimeError(`undefined constructor ${e.name}`);
          return v;
        }
        const table = env.get(`${e.qualifier}.`);
        const v =
          table !== undefined && typeof table === 'object' && table.k === 'record'
            ? table.fields.get(e.name)
            : undefined;
        if (v === undefined) throw new AilRuntimeError(`undefined name ${e.qualifier}.${e.name}`);
        return v;
      }
      case 'list':
        return listFrom(e.items.map((x) => this.value(x, env)));
      case 'tuple':
        return { k: 'tuple', items: e.items.map((x) => this.value(x, env)) };
      case 'record': {
        const fields = new Map<string, Value>();
        for (const f of e.fields) fields.set(f.name, this.value(f.value, env));
        return { k: 'record', fields };
      }
      case 'update': {
        const base = this.value(e.base, env);
        if (typeof base !== 'object' || base.k !== 'record')
          throw new AilRuntimeError('record update of a non-record');
        const fields = new Map(base.fields);
        for (const f of e.fields) fields.set(f.name, this.value(f.value, env));
        return { k: 'record', fields };
      }
      case 'field': {
        const target = this.value(e.target, env);
        if (typeof target !== 'object' || target.k !== 'record' || !target.fields.has(e.name)) {
          throw new AilRuntimeError(`${show(target)} has no field ${e.name}`);
        }
        return target.fields.get(e.name)!;
      }
      case 'call': {
        const fn = this.value(e.fn, env);
        const args = e.args.map((a) => this.value(a, env));
        if (tail && typeof fn === 'object' && fn.k === 'closure') return new TailCall(fn, args);
        return this.apply(fn, args);
      }
      case 'lambda':
        return {
          k: 'closure',
          name: 'lambda',
          params: e.params.map((p) => p.name),
          body: e.body,
          env,
        };
      case 'let': {
        const inner = new Env(env);
        if (e.rec) {
          const v = this.value(e.value, inner);
          inner.set((e.pat as { name: string }).name, v);
        } else {
          const v = this.value(e.value, env);
          if (!this.match(e.pat, v, inner))
            throw new AilRuntimeError(`let pattern does not match ${show(v)}`);
        }
        return this.eval(e.body, inner, tail);
      }
      case 'seq':
        this.value(e.first, env);
        return this.eval(e.then, env, tail);
      case 'if':
        return this.value(e.cond, env) === true
          ? this.eval(e.then, env, tail)
          : this.eval(e.else, env, tail);
      case 'match': {
        const v = this.value(e.scrutinee, env);
        for (const arm of e.arms) {
          const inner = new Env(env);
          if (!this.match(arm.pat, v, inner)) continue;
          if (arm.guard && this.value(arm.guard, inner) !== true) continue;
          return this.eval(arm.body, inner, tail);
        }
        throw new AilRuntimeError(`non-exhaustive match: no arm matches ${show(v)}`);
      }
      case 'binop':
        return this.binop(e, env);
      case 'unop': {
        const v = this.value(e.operand, env);
        if (e.op === '!') return !(v as boolean);
        return typeof v === 'bigint' ? wrap(-v) : -(v as number);
      }
    }
  }

  private binop(e: Extract<Expr, { k: 'binop' }>, env: Env): Value {
    if (e.op === '&&') return this.value(e.left, env) === true && this.value(e.right, env) === true;
    if (e.op === '||') return this.value(e.left, env) === true || this.value(e.right, env) === true;
    const a = this.value(e.left, env);
    const b = this.value(e.right, env);
    switch (e.op) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
      case '**':
        return arith(e.op, a, b);
      case '++':
        if (typeof a === 'string') return a + (b as string);
        return listFrom([...listItems(a as ListValue), ...listItems(b as ListValue)]);
      case '::':
        return { k: 'cons', head: a, tail: b as ListValue };
      case '==':
        return valuesEqual(a, b);
      case '!=':
        return !valuesEqual(a, b);
      default:
        return ordered(e.op, a, b);
    }
  }

  private match(p: Pattern, v: Value, env: Env): boolean {
    switch (p.k) {
      case 'pwild':
        return true;
      case 'pvar':
        env.set(p.name, v);
        return true;
      case 'pint':
        return typeof v === 'bigint' ? v === p.value : v === Number(p.value);
      case 'pfloat':
        return v === p.value;
      case 'pstr':
      case 'pbool':
        return v === p.value;
      case 'punit':
        return true;
      case 'pctor':
        return (
          typeof v === 'object' &&
          v.k === 'ctor' &&
          v.name === p.name &&
          v.args.length === p.args.length &&
          p.args.every((sub, i) => this.match(sub, v.args[i]!, env))
        );
      case 'plist': {
        if (!isList(v)) return false;
        let cur: ListValue = v;
        for (const item of p.items) {
          if (cur.k !== 'cons' || !this.match(item, cur.head, env)) return false;
          cur = cur.tail;
        }
        if (p.rest) return this.match(p.rest, cur, env);
        return cur.k === 'nil';
      }
      case 'pcons':
        return (
          isList(v) &&
          v.k === 'cons' &&
          this.match(p.head, v.head, env) &&
          this.match(p.tail, v.tail, env)
        );
      case 'ptuple':
        return (
          typeof v === 'object' &&
          v.k === 'tuple' &&
          v.items.length === p.items.length &&
          p.items.every((sub, i) => this.match(sub, v.items[i]!, env))
        );
      case 'precord':
        return (
          typeof v === 'object' &&
          v.k === 'record' &&
          p.fields.every(
            (f) => v.fields.has(f.name) && this.match(f.pat, v.fields.get(f.name)!, env),
          )
        );
    }
  }
}

function ctorValue(c: CtorInfo): Value {
  if (c.arity === 0) return { k: 'ctor', name: c.name, args: [] };
  const impl = (args: Value[]): Value => ({ k: 'ctor', name: c.name, args });
  return { k: 'builtin', name: c.name, arity: c.arity, impl };
}

/** Interpolation inserts strings as they are and shows everything else (ailang.md §2.1). */
function textOf(v: Value): string {
  return typeof v === 'string' ? v : show(v);
}
