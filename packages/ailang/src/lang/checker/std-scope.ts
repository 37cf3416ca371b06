import { convertType } from './convert-type.js';
import {
  U,
  type CtorInfo,
  type ModuleInterface,
  type ModuleScope,
  type TypeInfo,
  type ValueInfo,
} from './scope.js';
import { parseTypeText } from '../parser.js';
import { con, type Scheme, type TVar, type Type } from '../types.js';
import {
  BUILTINS,
  STD_MODULES,
  STD_TYPES,
  effectOf,
  type BuiltinSpec,
} from '../../stdlib/registry.js';

/**
 * The scope the standard library gives a module (ailang.md §2.1 "Imports", "Entry-module prelude";
 * §2.3; §4): one interface per embedded std module, built from the builtins registry, and the
 * prelude every module sees without an import — `show`, Option and Result, and every raw
 * builtin under its registry name (the real toolchain's `$builtin` module is in scope in every
 * module), so `_io_println(s)` and `intToFloat(n)` need no import and carry their effects.
 */

const PRELUDE_MODULE = 'prelude';
let stdCache: Map<string, ModuleInterface> | null = null;
let preludeCache: ModuleInterface | null = null;

const emptyInterface = (path: string): ModuleInterface => ({
  path,
  values: new Map(),
  types: new Map(),
  ctors: new Map(),
});

/** The interfaces of the embedded std modules and of the prelude. */
export function stdInterfaces(): {
  modules: Map<string, ModuleInterface>;
  prelude: ModuleInterface;
} {
  if (stdCache && preludeCache) return { modules: stdCache, prelude: preludeCache };
  const modules = new Map<string, ModuleInterface>();
  const prelude = emptyInterface(PRELUDE_MODULE);
  for (const path of STD_MODULES.keys()) modules.set(path, emptyInterface(path));
  // Every std type is known by name first, so the types may refer to each other (Json's
  // constructors hold [Json]) and builtin signatures may name any of them.
  const allTypes = new Map<string, TypeInfo>();
  for (const t of STD_TYPES) {
    const info: TypeInfo = {
      name: t.name,
      key: `${t.module}.${t.name}`,
      params: [...t.params],
      ctors: t.ctors?.map((c) => c.name) ?? null,
      alias: t.alias === null ? null : parseTypeText(t.alias).type,
      module: t.module,
      exported: true,
    };
    allTypes.set(t.name, info);
    modules.get(t.module)!.types.set(t.name, info);
    if (t.prelude) prelude.types.set(t.name, info);
  }
  const typeScope: ModuleScope = {
    values: new Map(),
    types: allTypes,
    ctors: new Map(),
    qualified: new Map(),
  };
  for (const t of STD_TYPES) {
    if (t.ctors === null) continue;
    const info = allTypes.get(t.name)!;
    const vars = new Map<string, Type>(t.params.map((p) => [p, U.fresh()]));
    const result = con(
      t.name,
      t.params.map((p) => vars.get(p)!),
      info.key,
    );
    for (const c of t.ctors) {
      const fields = c.fields.map((f) =>
        convertType(parseTypeText(f).type, typeScope, vars, 'closed'),
      );
      const type: Type = fields.length === 0 ? result : { t: 'fun', params: fields, ret: result };
      const ctor: CtorInfo = {
        name: c.name,
        typeName: t.name,
        arity: fields.length,
        scheme: { vars: [...vars.values()] as TVar[], type },
        module: t.module,
      };
      const value: ValueInfo = {
        kind: 'ctor',
        name: c.name,
        module: t.module,
        scheme: ctor.scheme,
        effects: [],
        ctor,
        exported: true,
      };
      const iface = modules.get(t.module)!;
      iface.ctors.set(c.name, ctor);
      iface.values.set(c.name, value);
      if (t.prelude) {
        prelude.ctors.set(c.name, ctor);
        prelude.values.set(c.name, value);
      }
    }
  }
  const valueOf = new Map<string, ValueInfo>();
  const infoOf = (spec: BuiltinSpec, name: string): ValueInfo => {
    const effect = effectOf(spec);
    return {
      kind: 'builtin',
      name,
      module: spec.module,
      scheme: builtinScheme(spec, allTypes),
      effects: effect ? [effect] : [],
      builtin: spec,
      exported: true,
    };
  };
  for (const spec of BUILTINS) {
    if (!spec.raw) continue;
    const info = infoOf(spec, spec.name);
    valueOf.set(spec.name, info);
    prelude.values.set(spec.name, info);
  }
  for (const [path, exports] of STD_MODULES) {
    for (const [exp, spec] of exports) {
      modules.get(path)!.values.set(exp, spec.raw ? valueOf.get(spec.name)! : infoOf(spec, exp));
    }
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
