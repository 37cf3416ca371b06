import { arith, ordered } from '../../runtime/operators.js';
import { valuesEqual, wrap, type BuiltinImpl, type Value } from '../../runtime/values.js';
import { flt, int } from './common.js';

/**
 * The monomorphic builtins operators lower to (stdlib/catalogue/numbers.ts): the same arithmetic
 * and ordering as the operators (runtime/operators.ts), so `add_Int(a, b)` and `a + b` agree.
 */

const ARITH = { add: '+', sub: '-', mul: '*', div: '/', mod: '%' } as const;
const ORDER = { lt: '<', le: '<=', gt: '>', ge: '>=' } as const;

function entries(): [string, BuiltinImpl][] {
  const out: [string, BuiltinImpl][] = [];
  for (const [name, op] of Object.entries(ARITH)) {
    out.push([`${name}_Int`, ([a, b]) => arith(op, int(a!), int(b!))]);
    out.push([`${name}_Float`, ([a, b]) => arith(op, flt(a!), flt(b!))]);
  }
  const num = (t: string, v: Value): Value => (t === 'Float' ? flt(v) : t === 'Int' ? int(v) : v);
  for (const t of ['Int', 'Float', 'String', 'Bool']) {
    out.push([`eq_${t}`, ([a, b]) => valuesEqual(num(t, a!), num(t, b!))]);
    out.push([`ne_${t}`, ([a, b]) => !valuesEqual(num(t, a!), num(t, b!))]);
  }
  for (const t of ['Int', 'Float', 'String']) {
    for (const [name, op] of Object.entries(ORDER))
      out.push([`${name}_${t}`, ([a, b]) => ordered(op, num(t, a!), num(t, b!))]);
  }
  return out;
}

export const OPERATOR_IMPLS: Record<string, BuiltinImpl> = {
  ...Object.fromEntries(entries()),
  neg_Int: ([a]) => wrap(-int(a!)),
  neg_Float: ([a]) => -flt(a!),
  and_Bool: ([a, b]) => a === true && b === true,
  or_Bool: ([a, b]) => a === true || b === true,
  not_Bool: ([a]) => a !== true,
};
