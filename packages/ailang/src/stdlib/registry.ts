import { ADTS } from './catalogue/adts.js';
import type { BuiltinSpec } from './catalogue/area.js';
import { IO_FS } from './catalogue/io-fs.js';
import { LISTS } from './catalogue/lists.js';
import { NUMBER_REEXPORTS, NUMBERS } from './catalogue/numbers.js';
import { SERVICES } from './catalogue/services.js';
import { TEXT } from './catalogue/text.js';

export type { BuiltinSpec } from './catalogue/area.js';

/**
 * The builtins registry of the embedded toolchain (ailang.md §4): every function the embedded
 * standard library provides, with its module, effect, signature and a one-line doc, and the
 * types the std modules export. Raw entries carry the real registry's names and are what
 * `builtins list` prints; each is callable in every module with the listed signature and effect,
 * as the real `$builtin` module makes them. The std modules' exports (ailang.md §2.3) name raw
 * entries or export-only ones. The checker reads the types from here, the interpreter the
 * implementations (stdlib/impl.ts), `builtins list` / `iface` print it.
 */

/** A type a std module exports: an ADT (`ctors`, fields as AILANG type text) or an alias. */
export interface StdType {
  module: string;
  name: string;
  params: readonly string[];
  ctors: readonly { name: string; fields: readonly string[] }[] | null;
  alias: string | null;
  /** in scope in every module without an import (Option and Result, ailang.md §2.1) */
  prelude: boolean;
}

/** The types the std modules export. */
export const STD_TYPES: readonly StdType[] = [
  {
    module: 'std/option',
    name: 'Option',
    params: ['a'],
    ctors: [
      { name: 'Some', fields: ['a'] },
      { name: 'None', fields: [] },
    ],
    alias: null,
    prelude: true,
  },
  {
    module: 'std/result',
    name: 'Result',
    params: ['a', 'e'],
    ctors: [
      { name: 'Ok', fields: ['a'] },
      { name: 'Err', fields: ['e'] },
    ],
    alias: null,
    prelude: true,
  },
  {
    module: 'std/json',
    name: 'Json',
    params: [],
    ctors: [
      { name: 'JNull', fields: [] },
      { name: 'JBool', fields: ['bool'] },
      { name: 'JNumber', fields: ['float'] },
      { name: 'JString', fields: ['string'] },
      { name: 'JArray', fields: ['[Json]'] },
      { name: 'JObject', fields: ['[{key: string, value: Json}]'] },
    ],
    alias: null,
    prelude: false,
  },
  {
    // The real std/env's error type; getEnv answers Err(NotFound(message)).
    module: 'std/env',
    name: 'EnvError',
    params: [],
    ctors: [
      { name: 'NotFound', fields: ['string'] },
      { name: 'NotAllowed', fields: ['string'] },
    ],
    alias: null,
    prelude: false,
  },
  {
    module: 'std/net',
    name: 'NetError',
    params: [],
    ctors: [
      { name: 'Transport', fields: ['string'] },
      { name: 'DisallowedHost', fields: ['string'] },
      { name: 'InvalidHeader', fields: ['string'] },
      { name: 'BodyTooLarge', fields: ['string'] },
    ],
    alias: null,
    prelude: false,
  },
  {
    // The real record also has `bodyBytes: bytes`; the embedded subset has no bytes values, so
    // a program that names that field is refused by the checker (TC_REC_001).
    module: 'std/net',
    name: 'HttpResponse',
    params: [],
    ctors: null,
    alias: '{status: int, headers: [{name: string, value: string}], body: string, ok: bool}',
    prelude: false,
  },
];

/** Every builtin, in registry order (listings sort by name). */
export const BUILTINS: readonly BuiltinSpec[] = [
  ...ADTS,
  ...IO_FS,
  ...TEXT,
  ...LISTS,
  ...NUMBERS,
  ...SERVICES,
];

/** Builtins by registry name. */
const BUILTINS_BY_NAME: ReadonlyMap<string, BuiltinSpec> = new Map(
  BUILTINS.map((b) => [b.name, b]),
);

/** The raw builtins: what `builtins list` prints and every module may call by name. */
export const RAW_BUILTINS: readonly BuiltinSpec[] = BUILTINS.filter((b) => b.raw);

/** The std modules the embedded toolchain provides, with their exports by public name. */
export const STD_MODULES: ReadonlyMap<string, ReadonlyMap<string, BuiltinSpec>> = (() => {
  const out = new Map<string, Map<string, BuiltinSpec>>();
  const moduleOf = (path: string): Map<string, BuiltinSpec> => {
    let m = out.get(path);
    if (!m) out.set(path, (m = new Map()));
    return m;
  };
  for (const t of STD_TYPES) moduleOf(t.module);
  for (const b of BUILTINS) {
    if (b.export === null || b.module === 'prelude') continue;
    moduleOf(exportingModuleOf(b)).set(b.export, b);
  }
  for (const [module, exp, raw] of NUMBER_REEXPORTS)
    moduleOf(module).set(exp, BUILTINS_BY_NAME.get(raw)!);
  return out;
})();

/** The std module that exports a builtin: its own, or for `$builtin` ones that of its prefix. */
export function exportingModuleOf(b: BuiltinSpec): string {
  if (b.module !== '$builtin') return b.module;
  if (b.name.startsWith('_list_')) return 'std/list';
  throw new Error(`no exporting module for ${b.name}`);
}

/** The effect a builtin performs (the first label of its row), or null when pure. */
export function effectOf(spec: BuiltinSpec): string | null {
  const m = /!\s*\{\s*([A-Z][A-Za-z]*)/.exec(spec.type.slice(spec.type.lastIndexOf('->')));
  return m ? m[1]! : null;
}

/** `name: type` as the real registry prints signatures (ailang.md §1.7). */
export function signatureOf(spec: BuiltinSpec): string {
  return `${spec.name}: ${spec.type}`;
}
