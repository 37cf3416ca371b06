import type { Module, TypeExpr } from '../ast.js';
import type { CompileError } from '../diagnostics.js';
import { Unifier, type Scheme } from '../types.js';
import { STD_MODULES, type BuiltinSpec } from '../../stdlib/registry.js';

/**
 * The names the checker works with (ailang.md §2.1 "Imports", "Types"): what a module declares
 * and exports, what its body sees, and the errors of one declaration. The interpreter links
 * modules from the same records.
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

/** One unifier for the whole process: variable ids stay unique across modules and schemes. */
export const U = new Unifier();

/** `module exports: a, b, …` — the hint of an unknown or unexported name. */
export function exportsHint(dep: ModuleInterface): string {
  const names = [...dep.values.keys(), ...dep.types.keys()].sort();
  return `${dep.path} exports: ${[...new Set(names)].join(', ')}`;
}

/** `import std/io (println)` when a std module exports the undefined name. */
export function importSuggestion(name: string): string | undefined {
  const from = [...STD_MODULES].filter(([, exports]) => exports.has(name)).map(([m]) => m);
  if (from.length === 0) return undefined;
  return from.map((m) => `import ${m} (${name})`).join(' or ');
}

/** `did you mean …?` for a constructor spelled with the wrong case. */
export function ctorSuggestion(name: string, scope: ModuleScope): string | undefined {
  const known = [...scope.ctors.keys()].filter((c) => c.toLowerCase() === name.toLowerCase());
  return known.length > 0 ? `did you mean ${known.join(' or ')}?` : undefined;
}
