import type { TypeExpr } from '../ast.js';
import { CompileError } from '../diagnostics.js';
import { BASE_TYPES } from '../parser/types.js';
import { UNIT, con, listOf, tupleOf, type TRec, type Type } from '../types.js';
import { U, type ModuleScope } from './scope.js';

/** 'free': unknown lowercase names become fresh variables; 'closed': they are errors. */
export type VarMode = 'free' | 'closed';

/**
 * Converts a written type to a Type. Lowercase names other than base types are type
 * variables, looked up in `vars`; in 'free' mode unknown ones are added.
 * @throws CompileError TC_UNDEF_002 for an unknown type or type variable, TC_ARITY_001 for a
 *   type applied to the wrong number of arguments
 */
export function convertType(
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
          // `{f: T, ...}` is `{f: T | r}` with a row variable of its own: registered so the
          // signature quantifies it and each use instantiates a fresh row (ailang.md §2.1
          // "Records").
          rest = U.fresh();
          vars.set(anonymousRowKey(vars), rest);
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
        if (te.args.length > 0)
          throw new CompileError('TC_UNDEF_002', `undefined type ${te.name}`, te.pos);
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
      // `List[T]` is the builtin list unless the module declares or imports a type List, which
      // then shadows it (ailang.md §2.1 "Lists: [T] or List[T]").
      if (info === undefined && te.name === BUILTIN_LIST_NAME) {
        if (te.args.length !== 1)
          throw new CompileError(
            'TC_ARITY_001',
            `type List takes 1 type argument, got ${te.args.length}`,
            te.pos,
          );
        return listOf(go(te.args[0]!));
      }
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
        const expanded = convertType(info.alias, scope, sub, 'closed', depth + 1);
        // The alias's own `...` rows are quantified with the signature that uses it.
        for (const [k, v] of sub) if (isAnonymousRowKey(k)) vars.set(anonymousRowKey(vars), v);
        return expanded;
      }
      return con(info.name, args, info.key);
    }
  }
}

// Keys of `...` rows in a variable map: `...` cannot start a type variable's name.
const anonymousRowKey = (vars: Map<string, Type>): string => `...${vars.size}`;
const isAnonymousRowKey = (k: string): boolean => k.startsWith('...');

/** The builtin list's name in `List[T]`; a type of this name in scope shadows it. */
const BUILTIN_LIST_NAME = 'List';

// Aliases expanding deeper than this are recursive (a finite program never needs more).
const ALIAS_DEPTH_MAX = 64;

function typeSuggestion(name: string): string | undefined {
  if (name === 'Int' || name === 'String' || name === 'Bool' || name === 'Float') {
    return `base types are lowercase: ${name.toLowerCase()}`;
  }
  return undefined;
}
