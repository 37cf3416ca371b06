/**
 * Types of the embedded checker: Hindley–Milner with levels, record rows, and three built-in
 * classes as constraints on type variables (ailang.md §2.1 "Hindley-Milner inference with type
 * classes"; §5.3). Effects are not part of function types here: the effect checker
 * (effects.ts) works on declared rows.
 */

/** A class constraint on a type variable: the set of type heads that have an instance. */
export interface TypeClass {
  name: string;
  allowed: ReadonlySet<string>;
}

/** Num: `+ - * / % **` and negation (ailang.md §2.1). */
export const NUM: TypeClass = { name: 'Num', allowed: new Set(['int', 'float']) };
/** Ord: `< > <= >=`. */
export const ORD: TypeClass = { name: 'Ord', allowed: new Set(['int', 'float', 'string']) };
/** Concat: `++` on strings and lists. */
export const CONCAT: TypeClass = { name: 'Concat', allowed: new Set(['string', 'List']) };

/** A type variable; `ref` is set once it is bound. */
export interface TVar {
  t: 'var';
  id: number;
  level: number;
  ref: Type | null;
  cls: TypeClass | null;
}

/**
 * A type constructor application: base types, `List`, `Tuple`, ADTs. `key` is unique per
 * declaring module; `rigid` marks a declared type parameter while its function body is checked.
 */
export interface TCon {
  t: 'con';
  name: string;
  key: string;
  args: Type[];
  rigid?: boolean;
}

/** A function type with its parameter list (AILANG functions are not curried). */
interface TFun {
  t: 'fun';
  params: Type[];
  ret: Type;
}

/** A record; `rest` is a row variable (open record) or null (closed). */
export interface TRec {
  t: 'rec';
  fields: Map<string, Type>;
  rest: Type | null;
}

/** A type. */
export type Type = TVar | TCon | TFun | TRec;

/** A polymorphic type: `vars` are quantified. */
export interface Scheme {
  vars: TVar[];
  type: Type;
}

/** Builds a base type. */
export function con(name: string, args: Type[] = [], key = name): TCon {
  return { t: 'con', name, key, args };
}

/** The base types. */
export const FLOAT = con('float');
export const STRING = con('string');
export const BOOL = con('bool');
export const UNIT = con('unit');

/** `[a]` */
export function listOf(elem: Type): TCon {
  return con('List', [elem]);
}

/** `(a, b, …)` */
export function tupleOf(items: Type[]): TCon {
  return con('Tuple', items);
}

/** Why two types failed to unify. */
export class UnifyError extends Error {
  constructor(
    readonly kind: 'mismatch' | 'class' | 'occurs' | 'field' | 'arity' | 'extra',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Follows bound variables, pointing every variable on the way straight at the end (path
 * compression: bindings are never undone). Without it the n elements of a list literal build
 * a chain of n variables that each later lookup walks — O(n²) for one literal.
 */
export function prune(t: Type): Type {
  let end = t;
  while (end.t === 'var' && end.ref !== null) end = end.ref;
  while (t !== end && t.t === 'var' && t.ref !== end) {
    const next: Type = t.ref!;
    t.ref = end;
    t = next;
  }
  return end;
}

/**
 * Fresh-variable supply, level tracking, unification, generalisation and instantiation.
 */
export class Unifier {
  private nextId = 0;
  level = 0;

  /** A fresh variable at the current level. */
  fresh(cls: TypeClass | null = null): TVar {
    return { t: 'var', id: this.nextId++, level: this.level, ref: null, cls };
  }

  enter(): void {
    this.level++;
  }

  leave(): void {
    this.level--;
  }

  /**
   * Unifies `expected` with `actual`.
   * @throws UnifyError describing the first conflict
   */
  unify(expected: Type, actual: Type): void {
    const a = prune(expected);
    const b = prune(actual);
    if (a === b) return;
    if (a.t === 'var') return this.bindVar(a, b);
    if (b.t === 'var') return this.bindVar(b, a);
    if (a.t === 'con' && b.t === 'con') {
      if (a.key !== b.key || a.args.length !== b.args.length) throw mismatch();
      for (let i = 0; i < a.args.length; i++) this.unify(a.args[i]!, b.args[i]!);
      return;
    }
    if (a.t === 'fun' && b.t === 'fun') {
      if (a.params.length !== b.params.length) throw mismatch('arity');
      for (let i = 0; i < a.params.length; i++) this.unify(a.params[i]!, b.params[i]!);
      this.unify(a.ret, b.ret);
      return;
    }
    if (a.t === 'rec' && b.t === 'rec') return this.unifyRecords(a, b);
    throw mismatch();
  }

  private bindVar(v: TVar, t: Type): void {
    if (t.t === 'var') {
      if (v.cls && t.cls) {
        const allowed = [...v.cls.allowed].filter((h) => t.cls!.allowed.has(h));
        if (allowed.length === 0) {
          throw new UnifyError('class', `conflicting constraints ${v.cls.name} and ${t.cls.name}`);
        }
        t.cls =
          allowed.length === t.cls.allowed.size
            ? t.cls
            : { name: t.cls.name, allowed: new Set(allowed) };
      } else if (v.cls) {
        t.cls = v.cls;
      }
      t.level = Math.min(t.level, v.level);
      v.ref = t;
      return;
    }
    if (occurs(v, t)) throw new UnifyError('occurs', 'infinite type');
    if (v.cls) {
      const head = t.t === 'con' && !t.rigid ? t.key : null;
      if (head === null || !v.cls.allowed.has(head)) {
        throw new UnifyError('class', `No instance for ${v.cls.name}[${showType(t)}] in scope`);
      }
    }
    adjustLevels(t, v.level);
    v.ref = t;
  }

  private unifyRecords(a: TRec, b: TRec): void {
    const fa = flattenRecord(a);
    const fb = flattenRecord(b);
    for (const [name, ta] of fa.fields) {
      const tb = fb.fields.get(name);
      if (tb !== undefined) this.unify(ta, tb);
    }
    const onlyA = new Map([...fa.fields].filter(([n]) => !fb.fields.has(n)));
    const onlyB = new Map([...fb.fields].filter(([n]) => !fa.fields.has(n)));
    const missing = (fields: Map<string, Type>): UnifyError =>
      new UnifyError(
        'field',
        `record has no field${fields.size > 1 ? 's' : ''} ${[...fields.keys()].map((f) => `"${f}"`).join(', ')}`,
      );
    if (fa.rest === null && fb.rest === null) {
      // Closed records are exact: no width subsumption (the current checker keeps `{a: T}`
      // exact and accepts extra fields only where the type is open, `{a: T | r}`).
      if (onlyA.size > 0 && onlyB.size > 0) throw mismatch();
      const extra = onlyA.size > 0 ? onlyA : onlyB;
      if (extra.size > 0) {
        const names = [...extra.keys()].sort();
        const list = `field${names.length > 1 ? 's' : ''} ${names.map((f) => `"${f}"`).join(', ')} ${names.length > 1 ? 'are' : 'is'}`;
        // A record written open whose row an earlier unification bound is exact from then on;
        // calling it closed would send the reader to the wrong declaration.
        throw new UnifyError(
          'extra',
          fa.rowBound || fb.rowBound
            ? `${list} in only one of the two record types: the row of an open record type was already bound to other fields by an earlier use in the same scope`
            : `${list} in only one of the two closed record types, and a closed record type is exact`,
        );
      }
      return;
    }
    if (fa.rest === null) {
      if (onlyB.size > 0) throw missing(onlyB);
      this.unify(fb.rest!, { t: 'rec', fields: onlyA, rest: null });
      return;
    }
    if (fb.rest === null) {
      if (onlyA.size > 0) throw missing(onlyA);
      this.unify(fa.rest, { t: 'rec', fields: onlyB, rest: null });
      return;
    }
    if (fa.rest === fb.rest) {
      if (onlyA.size > 0 || onlyB.size > 0) throw mismatch();
      return;
    }
    const r = this.fresh();
    this.unify(fa.rest, { t: 'rec', fields: onlyB, rest: r });
    this.unify(fb.rest, { t: 'rec', fields: onlyA, rest: r });
  }

  /** Quantifies the variables above the current level. */
  generalize(t: Type): Scheme {
    const vars: TVar[] = [];
    const seen = new Set<number>();
    const walk = (x: Type): void => {
      x = prune(x);
      if (x.t === 'var') {
        if (x.level > this.level && !seen.has(x.id)) {
          seen.add(x.id);
          vars.push(x);
        }
      } else if (x.t === 'con') x.args.forEach(walk);
      else if (x.t === 'fun') {
        x.params.forEach(walk);
        walk(x.ret);
      } else {
        x.fields.forEach(walk);
        if (x.rest) walk(x.rest);
      }
    };
    walk(t);
    return { vars, type: t };
  }

  /** Replaces a scheme's quantified variables by fresh ones. */
  instantiate(s: Scheme): Type {
    if (s.vars.length === 0) return s.type;
    const map = new Map<number, TVar>();
    for (const v of s.vars) map.set(v.id, this.fresh(v.cls));
    const copy = (x: Type): Type => {
      x = prune(x);
      if (x.t === 'var') return map.get(x.id) ?? x;
      if (x.t === 'con') return x.args.length === 0 ? x : { ...x, args: x.args.map(copy) };
      if (x.t === 'fun') return { t: 'fun', params: x.params.map(copy), ret: copy(x.ret) };
      const fields = new Map<string, Type>();
      x.fields.forEach((ft, n) => fields.set(n, copy(ft)));
      return { t: 'rec', fields, rest: x.rest ? copy(x.rest) : null };
    };
    return copy(s.type);
  }
}

function mismatch(kind: 'mismatch' | 'arity' = 'mismatch'): UnifyError {
  return new UnifyError(kind, 'type mismatch');
}

/**
 * A record with its bound row variables followed: all fields, the final rest, and whether a
 * bound row variable was followed (the record was written open, `{f: T | r}` or `{f: T, ...}`).
 */
export function flattenRecord(r: TRec): {
  fields: Map<string, Type>;
  rest: Type | null;
  rowBound: boolean;
} {
  const fields = new Map(r.fields);
  let rowBound = r.rest !== null && r.rest.t === 'var';
  let rest = r.rest === null ? null : prune(r.rest);
  while (rest !== null && rest.t === 'rec') {
    rest.fields.forEach((t, n) => fields.set(n, t));
    if (rest.rest !== null && rest.rest.t === 'var') rowBound = true;
    rest = rest.rest === null ? null : prune(rest.rest);
  }
  return { fields, rest, rowBound: rowBound && rest === null };
}

function occurs(v: TVar, t: Type): boolean {
  t = prune(t);
  if (t === v) return true;
  if (t.t === 'con') return t.args.some((a) => occurs(v, a));
  if (t.t === 'fun') return t.params.some((p) => occurs(v, p)) || occurs(v, t.ret);
  if (t.t === 'rec')
    return (
      [...t.fields.values()].some((f) => occurs(v, f)) || (t.rest !== null && occurs(v, t.rest))
    );
  return false;
}

function adjustLevels(t: Type, level: number): void {
  t = prune(t);
  if (t.t === 'var') t.level = Math.min(t.level, level);
  else if (t.t === 'con') t.args.forEach((a) => adjustLevels(a, level));
  else if (t.t === 'fun') {
    t.params.forEach((p) => adjustLevels(p, level));
    adjustLevels(t.ret, level);
  } else {
    t.fields.forEach((f) => adjustLevels(f, level));
    if (t.rest) adjustLevels(t.rest, level);
  }
}

/** Names free variables a, b, c… in order of appearance; shared across the types of one message. */
export class TypeNamer {
  private names = new Map<number, string>();

  name(v: TVar): string {
    let n = this.names.get(v.id);
    if (n === undefined) {
      const i = this.names.size;
      n = String.fromCharCode(97 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');
      this.names.set(v.id, n);
    }
    return n;
  }
}

/**
 * Renders a type in AILANG syntax: `int`, `[a]`, `(int, string)`, `{a: int}`, `(int) -> bool`,
 * `Option[int]`, `()` for unit.
 */
export function showType(t: Type, namer: TypeNamer = new TypeNamer()): string {
  t = prune(t);
  switch (t.t) {
    case 'var':
      return namer.name(t);
    case 'con':
      if (t.key === 'unit') return '()';
      if (t.key === 'List') return `[${showType(t.args[0]!, namer)}]`;
      if (t.key === 'Tuple') return `(${t.args.map((a) => showType(a, namer)).join(', ')})`;
      if (t.args.length === 0) return t.name;
      return `${t.name}[${t.args.map((a) => showType(a, namer)).join(', ')}]`;
    case 'fun':
      return `(${t.params.map((p) => showType(p, namer)).join(', ')}) -> ${showType(t.ret, namer)}`;
    case 'rec': {
      const { fields, rest } = flattenRecord(t);
      const parts = [...fields].map(([n, ft]) => `${n}: ${showType(ft, namer)}`);
      const body = parts.join(', ');
      if (rest === null) return `{${body}}`;
      return `{${body}${parts.length > 0 ? ' | ' : ''}${showType(rest, namer)}}`;
    }
  }
}
