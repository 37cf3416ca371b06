import {
  AilRuntimeError,
  isList,
  show,
  type ListValue,
  type RuntimeApi,
  type Value,
} from '../../runtime/values.js';

/**
 * Argument coercions every builtin implementation shares. The checker guarantees argument types;
 * these only narrow the TypeScript view (and turn an int literal that stayed polymorphic into the
 * float it stands for).
 */

export const int = (v: Value): bigint => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw new AilRuntimeError(`expected an int, got ${show(v)}`);
};
// An int literal whose type stayed polymorphic arrives as bigint where a float is expected.
/** An int literal whose type stayed polymorphic arrives as bigint where a float is expected. */
export const flt = (v: Value): number => (typeof v === 'bigint' ? Number(v) : (v as number));
export const str = (v: Value): string => v as string;
export const list = (v: Value): ListValue => {
  if (!isList(v)) throw new AilRuntimeError(`expected a list, got ${show(v)}`);
  return v;
};
export const cps = (s: string): string[] => [...s];

/** Calls a predicate; true only for the value true. */
export function truthy(rt: RuntimeApi, f: Value, ...args: Value[]): boolean {
  return rt.apply(f, args) === true;
}
