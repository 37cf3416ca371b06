import type { Expr } from '../ast.js';
import { CompileError, type ErrorCode, type Pos } from '../diagnostics.js';
import {
  TypeNamer,
  UnifyError,
  flattenRecord,
  prune,
  showType,
  type Scheme,
  type Type,
} from '../types.js';
import { U, ctorSuggestion, importSuggestion, type ModuleScope } from './scope.js';

/** Local variables: a persistent chain of frames. */
export class Locals {
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

/** A monomorphic scheme. */
export const mono = (t: Type): Scheme => ({ vars: [], type: t });

/**
 * What every part of body checking shares (ailang.md §2.1 "Hindley-Milner inference"): the
 * module scope, int literals awaiting their resolved type, unification reported as
 * "expected X, got Y" at a position, name and constructor lookup, and record field access.
 */
export abstract class CheckerBase {
  // int literals whose type is decided by inference (Num a => a, defaulting to int)
  protected literals: { node: { asFloat?: boolean }; type: Type }[] = [];

  constructor(protected readonly scope: ModuleScope) {}

  /** Int literals unified with float become float at run time; the rest stay int. */
  protected resolveLiterals(): void {
    for (const { node, type } of this.literals) {
      const t = prune(type);
      node.asFloat = t.t === 'con' && t.key === 'float';
    }
  }

  protected fail(code: ErrorCode, message: string, pos: Pos, suggestion?: string): never {
    throw new CompileError(code, message, pos, suggestion);
  }

  /** Unifies, reporting a mismatch at `pos` as "expected X, got Y". */
  protected expect(expected: Type, actual: Type, pos: Pos, what?: string): void {
    try {
      U.unify(expected, actual);
    } catch (e) {
      if (!(e instanceof UnifyError)) throw e;
      this.report(e, expected, actual, pos, what);
    }
  }

  protected report(e: UnifyError, expected: Type, actual: Type, pos: Pos, what?: string): never {
    if (e.kind === 'class') this.fail('TC_CLASS_001', e.message, pos);
    if (e.kind === 'occurs')
      this.fail('TC_INF_001', `infinite type: ${what ?? 'a value'} would contain itself`, pos);
    if (e.kind === 'field') this.fail('TC_REC_001', e.message, pos);
    const namer = new TypeNamer();
    const exp = showType(expected, namer);
    const act = showType(actual, namer);
    if (e.kind === 'extra')
      this.fail(
        'TC_REC_003',
        `type mismatch${what ? ` in ${what}` : ''}: expected ${exp}, got ${act} (${e.message})`,
        pos,
      );
    this.fail(
      'TC_TYPE_001',
      `type mismatch${what ? ` in ${what}` : ''}: expected ${exp}, got ${act}`,
      pos,
    );
  }

  protected lookup(name: string, pos: Pos, locals: Locals): Type {
    const local = locals.get(name);
    if (local) return U.instantiate(local);
    const global = this.scope.values.get(name);
    if (global) return U.instantiate(global.scheme);
    this.fail('TC_UNDEF_001', `undefined variable: ${name}`, pos, importSuggestion(name));
  }

  protected ctor(name: string, qualifier: string | null, pos: Pos) {
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
  protected fieldOf(target: Type, name: string, pos: Pos, set: Type | null): Type {
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
}

/** The position an expression's value comes from (the last expression of a let/seq chain). */
export function resultPos(e: Expr): Pos {
  while (e.k === 'let' || e.k === 'seq') e = e.k === 'let' ? e.body : e.then;
  return e.pos;
}

export function calleeName(fn: Expr): string {
  if (fn.k === 'var' || fn.k === 'ctor') return fn.name;
  if (fn.k === 'qvar') return `${fn.qualifier}.${fn.name}`;
  if (fn.k === 'field') return `.${fn.name}`;
  return 'the function';
}
