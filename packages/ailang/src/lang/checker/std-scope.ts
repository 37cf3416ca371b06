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
 * §2.3): one interface per embedded std module, built from the builtins registry, and the prelude
 * every module sees without an import.
 */

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
