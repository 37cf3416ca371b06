import type { FuncDecl, Module, TypeDecl } from './ast.js';
import { CompileError, type Pos } from './diagnostics.js';
import { con, type Scheme, type TVar, type Type } from './types.js';
import { BodyChecker } from './checker/bodies.js';
import { convertType } from './checker/convert-type.js';
import {
  U,
  exportsHint,
  type CheckedModule,
  type CtorInfo,
  type DeclError,
  type ModuleInterface,
  type ModuleScope,
  type TypeInfo,
  type ValueInfo,
} from './checker/scope.js';
import { stdInterfaces } from './checker/std-scope.js';

/**
 * The type checker of the embedded subset: Hindley–Milner inference with let-polymorphism for
 * let-bound lambdas, annotated top-level functions, ADTs, records with rows, and the built-in
 * classes Num / Ord / Concat (ailang.md §2.1, §5.2 Option B). What it checks, exactly:
 * literal and operator types, call arity (TC_ARITY_001) and argument types, return types
 * against annotations, constructor and pattern shapes, record fields, and name resolution.
 * Errors are CompileError TC_* (one per declaration) at the offending node. The parts: checker/scope.ts
 * (names), std-scope.ts (std modules and prelude), convert-type.ts (written types), base.ts,
 * patterns.ts and bodies.ts (inference); this file checks one module's imports and declarations.
 */

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
