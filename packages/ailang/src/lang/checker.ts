import type { Expr, FuncDecl, Module, Pattern, TypeDecl, TypeExpr } from './ast.js';
import { CompileError, type ErrorCode, type Pos } from './diagnostics.js';
import { BASE_TYPES, parseTypeText } from './parser.js';
import {
  BOOL,
  CONCAT,
  FLOAT,
  NUM,
  ORD,
  STRING,
  TypeNamer,
  UNIT,
  Unifier,
  UnifyError,
  con,
  flattenRecord,
  listOf,
  prune,
  showType,
  tupleOf,
  type Scheme,
  type TRec,
  type TVar,
  type Type,
} from './types.js';
import {
  BUILTINS,
  STD_MODULES,
  STD_TYPES,
  effectOf,
  type BuiltinSpec,
} from '../stdlib/registry.js';

/**
 * The type checker of the embedded subset: Hindley–Milner inference with let-polymorphism for
 * let-bound lambdas, annotated top-level functions, ADTs, records with rows, and the built-in
 * classes Num / Ord / Concat (ailang.md §2.1, §5.2 Option B). What it checks, exactly:
 * literal and operator types, call arity (TC_ARITY_001) and argument types, return types
 * against annotations, constructor and pattern shapes, record fields, and name resolution.
 * Errors are CompileError TC_* (one per declaration) at the offending node.
 */

/** A type known to a module: an ADT or an alias. */
export interface TypeInfo {
  name: string;
  key: string;
  params: string[];
  ctors: string[] | null;
  alias: TypeExpr | null;
  module: string;
  exported: boolean;
}

/** A data constructor. */
export interface CtorInfo {
  name: string;
  typeName: string;
  arity: number;
  scheme: Scheme;
  module: string;
}

/** A value-level name: a function (AILANG or builtin) or a constructor. */
export interface ValueInfo {
  kind: 'func' | 'builtin' | 'ctor';
  name: string;
  module: string;
  scheme: Scheme;
  /** the effect labels of its declared row (builtins: their effect) */
  effects: string[];
  builtin?: BuiltinSpec;
  ctor?: CtorInfo;
  exported: boolean;
}

/** What a module offers to importers. */
export interface ModuleInterface {
  path: string;
  values: Map<string, ValueInfo>;
  types: Map<string, TypeInfo>;
  ctors: Map<string, CtorInfo>;
}

/** The names a module body sees. */
export interface ModuleScope {
  values: Map<string, ValueInfo>;
  types: Map<string, TypeInfo>;
  ctors: Map<string, CtorInfo>;
  qualified: Map<string, ModuleInterface>;
}

/** A type error tied to the declaration it occurred in. */
export interface DeclError {
  error: CompileError;
  /** index of the declaration in the file, or -1 for import errors */
  decl: number;
}

/** The checked module. */
export interface CheckedModule {
  path: string;
  ast: Module;
  iface: ModuleInterface;
  scope: ModuleScope;
  errors: DeclError[];
}

// One unifier for the whole process: variable ids stay unique across modules and schemes.
const U = new Unifier();

// ---------------------------------------------------------------- std interfaces

const PRELUDE_MODULE = 'prelude';
let stdCache: Map<string, ModuleInterface> | null = null;
let preludeCache: ModuleInterface | null = null;

/** The interfaces of the embedded std modules and of the prelude (show, Option, Result). */
export function stdInterfaces(): {
  modules: Map<string, ModuleInterface>;
  prelude: ModuleInterface;
} {
  if (stdCache && preludeCache) return { modules: stdCache, prelude: preludeCache };
  const modules = new Map<string, ModuleInterface>();
  const prelude: ModuleInterface = {
    path: PRELUDE_MODULE,
    values: new Map(),
    types: new Map(),
    ctors: new Map(),
  };
  for (const path of STD_MODULES.keys())
    modules.set(path, { path, values: new Map(), types: new Map(), ctors: new Map() });
  for (const t of STD_TYPES) {
    const key = `${t.module}.${t.name}`;
    const info: TypeInfo = {
      name: t.name,
      key,
      params: [...t.params],
      ctors: t.ctors.map((c) => c.name),
      alias: null,
      module: t.module,
      exported: true,
    };
    const vars = new Map<string, TVar>(t.params.map((p) => [p, U.fresh()]));
    const result = con(
      t.name,
      t.params.map((p) => vars.get(p)!),
      key,
    );
    const iface = modules.get(t.module)!;
    iface.types.set(t.name, info);
    prelude.types.set(t.name, info);
    for (const c of t.ctors) {
      const fields = c.fields.map((f) => vars.get(f)!);
      const type: Type = fields.length === 0 ? result : { t: 'fun', params: fields, ret: result };
      const ctor: CtorInfo = {
        name: c.name,
        typeName: t.name,
        arity: fields.length,
        scheme: { vars: [...vars.values()], type },
        module: t.module,
      };
      iface.ctors.set(c.name, ctor);
      prelude.ctors.set(c.name, ctor);
      const value: ValueInfo = {
        kind: 'ctor',
        name: c.name,
        module: t.module,
        scheme: ctor.scheme,
        effects: [],
        ctor,
        exported: true,
      };
      iface.values.set(c.name, value);
      prelude.values.set(c.name, value);
    }
  }
  for (const spec of BUILTINS) {
    const scheme = builtinScheme(spec, prelude.types);
    const effect = effectOf(spec);
    const value: ValueInfo = {
      kind: 'builtin',
      name: spec.export,
      module: spec.module,
      scheme,
      effects: effect ? [effect] : [],
      builtin: spec,
      exported: true,
    };
    if (spec.module === PRELUDE_MODULE) prelude.values.set(spec.export, value);
    else modules.get(spec.module)!.values.set(spec.export, value);
  }
  stdCache = modules;
  preludeCache = prelude;
  return { modules, prelude };
}

function builtinScheme(spec: BuiltinSpec, types: Map<string, TypeInfo>): Scheme {
  const { type } = parseTypeText(spec.type);
  const vars = new Map<string, Type>();
  const scope: ModuleScope = { values: new Map(), types, ctors: new Map(), qualified: new Map() };
  const t = convertType(type, scope, vars, 'free');
  return { vars: [...vars.values()] as TVar[], type: t };
}

// ---------------------------------------------------------------- type expressions

type VarMode = 'free' | 'closed';

/**
 * Converts a written type to a Type. Lowercase names other than base types are type
 * variables, looked up in `vars`; in 'free' mode unknown ones are added.
 * @throws CompileError TC_UNDEF_002 for an unknown type or type variable, TC_ARITY_001 for a
 *   type applied to the wrong number of arguments
 */
function convertType(
  te: TypeExpr,
  scope: ModuleScope,
  vars: Map<string, Type>,
  mode: VarMode,
  depth = 0,
): Type {
  const go = (x: TypeExpr): Type => convertType(x, scope, vars, mode, depth);
  switch (te.k) {
    case 'tunit':
      return UNIT;
    case 'tlist':
      return listOf(go(te.elem));
    case 'ttuple':
      return tupleOf(te.items.map(go));
    case 'tfun':
      return { t: 'fun', params: te.params.map(go), ret: go(te.ret) };
    case 'trecord': {
      const fields = new Map<string, Type>();
      for (const f of te.fields) {
        if (fields.has(f.name))
          throw new CompileError(
            'TC_REC_002',
            `duplicate field "${f.name}" in record type`,
            te.pos,
          );
        fields.set(f.name, go(f.type));
      }
      let rest: Type | null = null;
      if (te.open) {
        if (te.rest !== null) {
          rest = vars.get(te.rest) ?? null;
          if (rest === null) {
            if (mode === 'closed')
              throw new CompileError('TC_UNDEF_002', `undefined type variable ${te.rest}`, te.pos);
            rest = U.fresh();
            vars.set(te.rest, rest);
          }
        } else {
          rest = U.fresh();
        }
      }
      return { t: 'rec', fields, rest } satisfies TRec;
    }
    case 'tname': {
      if (BASE_TYPES.has(te.name)) {
        if (te.args.length > 0)
          throw new CompileError('TC_ARITY_001', `type ${te.name} takes no arguments`, te.pos);
        return te.name === 'unit' ? UNIT : con(te.name);
      }
      if (/^[a-z_]/.test(te.name)) {
        let v = vars.get(te.name);
        if (v === undefined) {
          if (mode === 'closed')
            throw new CompileError('TC_UNDEF_002', `undefined type variable ${te.name}`, te.pos);
          v = U.fresh();
          vars.set(te.name, v);
        }
        return v;
      }
      const info = scope.types.get(te.name);
      if (info === undefined) {
        throw new CompileError(
          'TC_UNDEF_002',
          `undefined type ${te.name}`,
          te.pos,
          typeSuggestion(te.name),
        );
      }
      if (info.params.length !== te.args.length) {
        throw new CompileError(
          'TC_ARITY_001',
          `type ${te.name} takes ${info.params.length} type argument${info.params.length === 1 ? '' : 's'}, got ${te.args.length}`,
          te.pos,
        );
      }
      const args = te.args.map(go);
      if (info.alias !== null) {
        if (depth > ALIAS_DEPTH_MAX)
          throw new CompileError('TC_INF_001', `type alias ${te.name} expands forever`, te.pos);
        const sub = new Map<string, Type>(info.params.map((p, i) => [p, args[i]!]));
        return convertType(info.alias, scope, sub, 'closed', depth + 1);
      }
      return con(info.name, args, info.key);
    }
  }
}

// Aliases expanding deeper than this are recursive (a finite program never needs more).
const ALIAS_DEPTH_MAX = 64;

function typeSuggestion(name: string): string | undefined {
  if (name === 'Int' || name === 'String' || name === 'Bool' || name === 'Float') {
    return `base types are lowercase: ${name.toLowerCase()}`;
  }
  return undefined;
}

// ---------------------------------------------------------------- module checking

/**
 * Type-checks one parsed module against the interfaces of its imports.
 * @param ast the parsed module
 * @param deps interfaces of every imported module by path (std ones included)
 * @returns the module's interface, its scope (for the interpreter) and its errors
 */
export function checkModule(
  ast: Module,
  deps: ReadonlyMap<string, ModuleInterface>,
): CheckedModule {
  const { prelude } = stdInterfaces();
  const errors: DeclError[] = [];
  const scope: ModuleScope = {
    values: new Map(prelude.values),
    types: new Map(prelude.types),
    ctors: new Map(prelude.ctors),
    qualified: new Map(),
  };
  const iface: ModuleInterface = {
    path: ast.name,
    values: new Map(),
    types: new Map(),
    ctors: new Map(),
  };
  const importedFrom = new Map<string, string>();

  // Imports
  for (const imp of ast.imports) {
    const dep = deps.get(imp.path);
    if (dep === undefined) continue; // the loader reported the unknown module
    if (imp.alias !== null) scope.qualified.set(imp.alias, dep);
    const bring = (name: string, pos: Pos): void => {
      const value = dep.values.get(name);
      const type = dep.types.get(name);
      const ctor = dep.ctors.get(name);
      if (!value && !type && !ctor) {
        errors.push({
          error: new CompileError(
            'IMP011',
            `${imp.path} does not export ${name}`,
            pos,
            exportsHint(dep),
          ),
          decl: -1,
        });
        return;
      }
      const prior = importedFrom.get(name);
      if (prior !== undefined && prior !== imp.path) {
        errors.push({
          error: new CompileError(
            'IMP013',
            `${name} is imported from both ${prior} and ${imp.path}`,
            pos,
            `import one of them under an alias: import ${imp.path} as X, then write X.${name}`,
          ),
          decl: -1,
        });
        return;
      }
      importedFrom.set(name, imp.path);
      if (value) scope.values.set(name, value);
      if (type) {
        scope.types.set(name, type);
        for (const c of type.ctors ?? []) {
          const ci = dep.ctors.get(c);
          if (ci) {
            scope.ctors.set(c, ci);
            const cv = dep.values.get(c);
            if (cv) scope.values.set(c, cv);
          }
        }
      }
      if (ctor) scope.ctors.set(name, ctor);
    };
    if (imp.names !== null) {
      for (const n of imp.names) bring(n.name, n.pos);
    } else if (imp.alias === null) {
      for (const name of new Set([...dep.values.keys(), ...dep.types.keys()])) bring(name, imp.pos);
    }
  }

  // Declarations: types, constructors, function signatures, then bodies.
  const own = new Set<string>();
  ast.decls.forEach((d, index) => {
    if (d.kind !== 'type') return;
    if (own.has(d.name) || (importedFrom.has(d.name) && scope.types.has(d.name))) {
      errors.push({
        error: new CompileError('TC_DUP_001', `type ${d.name} is defined twice`, d.pos),
        decl: index,
      });
      return;
    }
    own.add(d.name);
    const info: TypeInfo = {
      name: d.name,
      key: `${ast.name}.${d.name}`,
      params: d.tparams,
      ctors: d.ctors?.map((c) => c.name) ?? null,
      alias: d.alias,
      module: ast.name,
      exported: d.exported,
    };
    scope.types.set(d.name, info);
    if (d.exported) iface.types.set(d.name, info);
  });
  ast.decls.forEach((d, index) => {
    if (d.kind !== 'type' || d.ctors === null) return;
    try {
      declareCtors(d, ast.name, scope, iface);
    } catch (e) {
      if (!(e instanceof CompileError)) throw e;
      errors.push({ error: e, decl: index });
    }
  });
  const signatures = new Map<FuncDecl, Scheme>();
  ast.decls.forEach((d, index) => {
    if (d.kind !== 'func') return;
    try {
      if (own.has(d.name) || importedFrom.has(d.name)) {
        throw new CompileError(
          'TC_DUP_001',
          importedFrom.has(d.name)
            ? `${d.name} is both imported from ${importedFrom.get(d.name)} and defined here`
            : `${d.name} is defined twice`,
          d.pos,
        );
      }
      own.add(d.name);
      const vars = new Map<string, Type>();
      for (const tp of d.tparams) vars.set(tp, U.fresh());
      const type: Type = {
        t: 'fun',
        params: d.params.map((p) => convertType(p.type, scope, vars, 'free')),
        ret: convertType(d.ret, scope, vars, 'free'),
      };
      const scheme: Scheme = { vars: [...vars.values()] as TVar[], type };
      signatures.set(d, scheme);
      const info: ValueInfo = {
        kind: 'func',
        name: d.name,
        module: ast.name,
        scheme,
        effects: (d.effects?.labels ?? []).map((l) => l.name),
        exported: d.exported,
      };
      scope.values.set(d.name, info);
      if (d.exported) iface.values.set(d.name, info);
      // Checked after registering, so callers of a mis-annotated function are not reported too.
      if (d.effects?.budgeted) {
        throw new CompileError(
          'TC_EFF_001',
          'effect budget annotations (@limit / @min) are not supported by the embedded AILANG toolchain',
          d.effects.budgeted,
          'remove the @limit / @min annotation; the run policy budgets FS operations',
        );
      }
      if (
        d.pure &&
        d.effects !== null &&
        (d.effects.labels.length > 0 || d.effects.vars.length > 0)
      ) {
        throw new CompileError(
          'TC_EFF_001',
          `pure function ${d.name} declares effects`,
          d.effects.pos,
          'drop "pure" or the effect row',
        );
      }
    } catch (e) {
      if (!(e instanceof CompileError)) throw e;
      errors.push({ error: e, decl: index });
    }
  });
  ast.decls.forEach((d, index) => {
    if (d.kind !== 'func' || !signatures.has(d) || errors.some((e) => e.decl === index)) return;
    try {
      new BodyChecker(scope).checkFunc(d);
    } catch (e) {
      if (!(e instanceof CompileError)) throw e;
      errors.push({ error: e, decl: index });
    }
  });
  return { path: ast.name, ast, iface, scope, errors };
}

function exportsHint(dep: ModuleInterface): string {
  const names = [...dep.values.keys(), ...dep.types.keys()].sort();
  return `${dep.path} exports: ${[...new Set(names)].join(', ')}`;
}

function declareCtors(
  d: TypeDecl,
  module: string,
  scope: ModuleScope,
  iface: ModuleInterface,
): void {
  const vars = new Map<string, Type>(d.tparams.map((p) => [p, U.fresh()]));
  const info = scope.types.get(d.name)!;
  const result = con(
    d.name,
    d.tparams.map((p) => vars.get(p)!),
    info.key,
  );
  for (const c of d.ctors!) {
    if (scope.ctors.has(c.name) && scope.ctors.get(c.name)!.module === module) {
      throw new CompileError('TC_DUP_001', `constructor ${c.name} is defined twice`, c.pos);
    }
    const fields = c.fields.map((f) => convertType(f, scope, vars, 'closed'));
    const type: Type = fields.length === 0 ? result : { t: 'fun', params: fields, ret: result };
    const ctor: CtorInfo = {
      name: c.name,
      typeName: d.name,
      arity: fields.length,
      scheme: { vars: [...vars.values()] as TVar[], type },
      module,
    };
    const value: ValueInfo = {
      kind: 'ctor',
      name: c.name,
      module,
      scheme: ctor.scheme,
      effects: [],
      ctor,
      exported: d.exported,
    };
    scope.ctors.set(c.name, ctor);
    scope.values.set(c.name, value);
    if (d.exported) {
      iface.ctors.set(c.name, ctor);
      iface.values.set(c.name, value);
    }
  }
}

// ---------------------------------------------------------------- bodies

/** Local variables: a persistent chain of frames. */
class Locals {
  private readonly vars = new Map<string, Scheme>();
  constructor(private readonly parent: Locals | null = null) {}

  get(name: string): Scheme | undefined {
    return this.vars.get(name) ?? this.parent?.get(name);
  }

  set(name: string, s: Scheme): void {
    this.vars.set(name, s);
  }

  child(): Locals {
    return new Locals(this);
  }
}

const mono = (t: Type): Scheme => ({ vars: [], type: t });

class BodyChecker {
  // int literals whose type is decided by inference (Num a => a, defaulting to int)
  private literals: { node: { asFloat?: boolean }; type: Type }[] = [];

  constructor(private readonly scope: ModuleScope) {}

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

  /** Int literals unified with float become float at run time; the rest stay int. */
  private resolveLiterals(): void {
    for (const { node, type } of this.literals) {
      const t = prune(type);
      node.asFloat = t.t === 'con' && t.key === 'float';
    }
  }

  private fail(code: ErrorCode, message: string, pos: Pos, suggestion?: string): never {
    throw new CompileError(code, message, pos, suggestion);
  }

  /** Unifies, reporting a mismatch at `pos` as "expected X, got Y". */
  private expect(expected: Type, actual: Type, pos: Pos, what?: string): void {
    try {
      U.unify(expected, actual);
    } catch (e) {
      if (!(e instanceof UnifyError)) throw e;
      this.report(e, expected, actual, pos, what);
    }
  }

  private report(e: UnifyError, expected: Type, actual: Type, pos: Pos, what?: string): never {
    if (e.kind === 'class') this.fail('TC_CLASS_001', e.message, pos);
    if (e.kind === 'occurs')
      this.fail('TC_INF_001', `infinite type: ${what ?? 'a value'} would contain itself`, pos);
    if (e.kind === 'field') this.fail('TC_REC_001', e.message, pos);
    const namer = new TypeNamer();
    const exp = showType(expected, namer);
    const act = showType(actual, namer);
    this.fail(
      'TC_TYPE_001',
      `type mismatch${what ? ` in ${what}` : ''}: expected ${exp}, got ${act}`,
      pos,
    );
  }

  private lookup(name: string, pos: Pos, locals: Locals): Type {
    const local = locals.get(name);
    if (local) return U.instantiate(local);
    const global = this.scope.values.get(name);
    if (global) return U.instantiate(global.scheme);
    this.fail('TC_UNDEF_001', `undefined variable: ${name}`, pos, importSuggestion(name));
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

  private ctor(name: string, qualifier: string | null, pos: Pos) {
    const table =
      qualifier === null ? this.scope.ctors : this.scope.qualified.get(qualifier)?.ctors;
    const c = table?.get(name);
    if (!c) {
      this.fail(
        'TC_UNDEF_003',
        `undefined constructor ${qualifier ? `${qualifier}.` : ''}${name}`,
        pos,
        ctorSuggestion(name, this.scope),
      );
    }
    return c;
  }

  /** The type of field `name` of `target`; with `set`, the field must have that type. */
  private fieldOf(target: Type, name: string, pos: Pos, set: Type | null): Type {
    const t = prune(target);
    if (t.t === 'rec') {
      const flat = flattenRecord(t);
      const ft = flat.fields.get(name);
      if (ft !== undefined) {
        if (set) this.expect(ft, set, pos, `field "${name}"`);
        return ft;
      }
      if (flat.rest === null) {
        const known = [...flat.fields.keys()];
        this.fail(
          'TC_REC_001',
          `record has no field "${name}"`,
          pos,
          known.length > 0 ? `fields: ${known.join(', ')}` : undefined,
        );
      }
    } else if (t.t !== 'var') {
      this.fail(
        'TC_TYPE_001',
        `field access .${name} on a value of type ${showType(t)}, not a record`,
        pos,
      );
    }
    const ft = set ?? U.fresh();
    this.expect(
      { t: 'rec', fields: new Map([[name, ft]]), rest: U.fresh() },
      t,
      pos,
      `field "${name}"`,
    );
    return ft;
  }

  private inferCall(e: Extract<Expr, { k: 'call' }>, locals: Locals): Type {
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

  private inferBinop(e: Extract<Expr, { k: 'binop' }>, locals: Locals): Type {
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

  private bindPattern(p: Pattern, t: Type, locals: Locals, bound: Set<string>): void {
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

/** The position an expression's value comes from (the last expression of a let/seq chain). */
function resultPos(e: Expr): Pos {
  while (e.k === 'let' || e.k === 'seq') e = e.k === 'let' ? e.body : e.then;
  return e.pos;
}

function calleeName(fn: Expr): string {
  if (fn.k === 'var' || fn.k === 'ctor') return fn.name;
  if (fn.k === 'qvar') return `${fn.qualifier}.${fn.name}`;
  if (fn.k === 'field') return `.${fn.name}`;
  return 'the function';
}

/** `import std/io (println)` when a std module exports the undefined name. */
export function importSuggestion(name: string): string | undefined {
  const from = [...STD_MODULES].filter(([, exports]) => exports.has(name)).map(([m]) => m);
  if (from.length === 0) return undefined;
  return from.map((m) => `import ${m} (${name})`).join(' or ');
}

function ctorSuggestion(name: string, scope: ModuleScope): string | undefined {
  const known = [...scope.ctors.keys()].filter((c) => c.toLowerCase() === name.toLowerCase());
  return known.length > 0 ? `did you mean ${known.join(' or ')}?` : undefined;
}
