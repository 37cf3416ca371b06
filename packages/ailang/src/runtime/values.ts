import type { Expr } from '../lang/ast.js';

/**
 * Runtime values of the embedded interpreter and the `show` renderer. Ints are 64-bit two's
 * complement (AILANG ints are Go int64: results wrap, division truncates), floats are doubles,
 * lists are immutable cons cells.
 */

/** `()` */
export const UNIT_V: { readonly k: 'unit' } = Object.freeze({ k: 'unit' as const });
/** `[]` */
export const NIL: { readonly k: 'nil' } = Object.freeze({ k: 'nil' as const });

/** A non-empty list cell. */
interface Cons {
  k: 'cons';
  head: Value;
  tail: ListValue;
}
/** An immutable list: cons cells ending in NIL. */
export type ListValue = Cons | typeof NIL;

/** `(a, b, …)` */
interface TupleValue {
  k: 'tuple';
  items: Value[];
}
/** `{name: value, …}` */
interface RecordValue {
  k: 'record';
  fields: Map<string, Value>;
}
/** A constructor applied to its fields: `Some(1)`, `None`. */
export interface CtorValue {
  k: 'ctor';
  name: string;
  args: Value[];
}

/** A lexical environment frame. */
export class Env {
  private readonly vars = new Map<string, Value>();
  constructor(readonly parent: Env | null = null) {}

  get(name: string): Value | undefined {
    const v = this.vars.get(name);
    if (v !== undefined) return v;
    let e = this.parent;
    while (e !== null) {
      const w = e.vars.get(name);
      if (w !== undefined) return w;
      e = e.parent;
    }
    return undefined;
  }

  set(name: string, v: Value): void {
    this.vars.set(name, v);
  }
}

/** A function value of AILANG code: parameters, body and captured environment. */
export interface Closure {
  k: 'closure';
  name: string;
  params: string[];
  body: Expr;
  env: Env;
}

/** Implementation of a builtin: receives evaluated arguments and the runtime. */
export type BuiltinImpl = (args: Value[], rt: RuntimeApi) => Value;

/** A function value implemented in TypeScript (builtins and constructors). */
export interface BuiltinFn {
  k: 'builtin';
  name: string;
  arity: number;
  impl: BuiltinImpl;
}

/** A runtime value. */
export type Value =
  | bigint
  | number
  | string
  | boolean
  | typeof UNIT_V
  | ListValue
  | TupleValue
  | RecordValue
  | CtorValue
  | Closure
  | BuiltinFn;

/** What builtins may use of the interpreter. */
export interface RuntimeApi {
  /** Calls a function value (closures re-enter the interpreter). */
  apply(fn: Value, args: Value[]): Value;
  /** The host: I/O, sandbox, capabilities. */
  readonly host: import('./host.js').RuntimeHost;
}

/** A runtime failure: printed as `Error: execution failed: <message>`, exit code 1. */
export class AilRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AilRuntimeError';
  }
}

/** `exit(code)` from std/io unwinding to the runner. */
export class ExitRequest {
  constructor(readonly code: number) {}
}

// ---------------------------------------------------------------- lists

/** Builds a list from an array. */
export function listFrom(items: readonly Value[]): ListValue {
  let out: ListValue = NIL;
  for (let i = items.length - 1; i >= 0; i--) out = { k: 'cons', head: items[i]!, tail: out };
  return out;
}

/** The elements of a list as an array. */
export function listItems(xs: ListValue): Value[] {
  const out: Value[] = [];
  let cur: ListValue = xs;
  while (cur.k === 'cons') {
    out.push(cur.head);
    cur = cur.tail;
  }
  return out;
}

/** True for list values. */
export function isList(v: Value): v is ListValue {
  return typeof v === 'object' && (v.k === 'nil' || v.k === 'cons');
}

/** `Some(v)`, `None`, `Ok(v)`, `Err(v)` (std/option, std/result). */
export function some(v: Value): CtorValue {
  return { k: 'ctor', name: 'Some', args: [v] };
}
export const NONE: CtorValue = { k: 'ctor', name: 'None', args: [] };
export function ok(v: Value): CtorValue {
  return { k: 'ctor', name: 'Ok', args: [v] };
}
export function err(v: Value): CtorValue {
  return { k: 'ctor', name: 'Err', args: [v] };
}

// ---------------------------------------------------------------- numbers

/** Wraps to int64 (Go semantics). */
export function wrap(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

/** Code-point order of two strings (Go compares UTF-8 bytes, which orders the same). */
export function compareStrings(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  while (true) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

// ---------------------------------------------------------------- equality

/**
 * Structural equality (`==`). An int literal whose type stayed polymorphic may meet a float:
 * they compare numerically.
 * @throws AilRuntimeError when functions are compared
 */
export function valuesEqual(a: Value, b: Value): boolean {
  if (typeof a === 'bigint' || typeof a === 'number') {
    if (typeof b === 'bigint' && typeof a === 'bigint') return a === b;
    return Number(a) === Number(b);
  }
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (a.k === 'closure' || a.k === 'builtin' || b.k === 'closure' || b.k === 'builtin') {
    throw new AilRuntimeError('cannot compare functions with ==');
  }
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'unit':
    case 'nil':
      return true;
    case 'cons': {
      let x: ListValue = a;
      let y: ListValue = b as Cons;
      while (x.k === 'cons' && y.k === 'cons') {
        if (!valuesEqual(x.head, y.head)) return false;
        x = x.tail;
        y = y.tail;
      }
      return x.k === y.k;
    }
    case 'tuple': {
      const bi = (b as TupleValue).items;
      return a.items.length === bi.length && a.items.every((v, i) => valuesEqual(v, bi[i]!));
    }
    case 'record': {
      const bf = (b as RecordValue).fields;
      if (a.fields.size !== bf.size) return false;
      for (const [n, v] of a.fields) {
        const w = bf.get(n);
        if (w === undefined || !valuesEqual(v, w)) return false;
      }
      return true;
    }
    case 'ctor': {
      const bc = b as CtorValue;
      return (
        a.name === bc.name &&
        a.args.length === bc.args.length &&
        a.args.every((v, i) => valuesEqual(v, bc.args[i]!))
      );
    }
  }
  return false;
}

// ---------------------------------------------------------------- show

// show() renders containers nested deeper than 3 as "...", and elides a rendered container
// wider than 80 characters to its first 20 + "..." + last 20 (the real renderer's layout).
const SHOW_MAX_DEPTH = 3;
const SHOW_MAX_WIDTH = 80;
const SHOW_ELISION_KEEP = 20;

/**
 * Renders a value as `show` does: strings unquoted at every depth, floats always with a
 * decimal point and never in exponent form (`2.0`, `100000000000000000000.0`, `NaN`, `Inf`),
 * records sorted by field name, constructors as `Some(1)`, functions as `<function>`.
 */
export function show(v: Value, depth = 0): string {
  if (depth > SHOW_MAX_DEPTH) return '...';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return showFloat(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const child = (x: Value): string => show(x, depth + 1);
  switch (v.k) {
    case 'unit':
      return '()';
    case 'nil':
    case 'cons':
      return elide(`[${listItems(v).map(child).join(', ')}]`);
    case 'tuple':
      return elide(`(${v.items.map(child).join(', ')})`);
    case 'record': {
      if (v.fields.size === 0) return '{}';
      const names = [...v.fields.keys()].sort(compareStrings);
      return elide(`{${names.map((n) => `${n}: ${child(v.fields.get(n)!)}`).join(', ')}}`);
    }
    case 'ctor':
      return v.args.length === 0 ? v.name : `${v.name}(${v.args.map(child).join(', ')})`;
    case 'closure':
    case 'builtin':
      return '<function>';
  }
}

function elide(s: string): string {
  const cps = [...s];
  if (cps.length <= SHOW_MAX_WIDTH || 2 * SHOW_ELISION_KEEP + 3 >= cps.length) return s;
  return `${cps.slice(0, SHOW_ELISION_KEEP).join('')}...${cps.slice(cps.length - SHOW_ELISION_KEEP).join('')}`;
}

/** A float in shortest round-trip digits, positional notation, always with a `.`. */
export function showFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Inf';
  if (x === -Infinity) return '-Inf';
  const negative = x < 0 || Object.is(x, -0);
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  let s: string;
  if (exp >= digits.length - 1) {
    s = digits + '0'.repeat(exp - (digits.length - 1));
  } else if (exp >= 0) {
    s = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    s = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  if (!s.includes('.')) s += '.0';
  return (negative ? '-' : '') + s;
}
