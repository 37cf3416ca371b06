import { AilRuntimeError, compareStrings, wrap, type Value } from './values.js';

/**
 * The operators' arithmetic and ordering, in one place for the interpreter's `+ - * / % **` and
 * `< > <= >=` and for the monomorphic builtins they lower to (`add_Int`, `lt_Float`, …;
 * stdlib/catalogue/numbers.ts).
 */

/**
 * Arithmetic with Go int64 semantics for ints (wrapping, truncating division, RT001 on a zero
 * divisor) and IEEE doubles for floats.
 */
export function arith(op: '+' | '-' | '*' | '/' | '%' | '**', a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op) {
      case '+':
        return wrap(a + b);
      case '-':
        return wrap(a - b);
      case '*':
        return wrap(a * b);
      case '/':
        if (b === 0n) throw new AilRuntimeError('RT001: division by zero');
        return wrap(a / b);
      case '%':
        if (b === 0n) throw new AilRuntimeError('RT001: division by zero');
        return a % b;
      case '**':
        return intPow(a, b);
    }
  }
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      // IEEE 754 except at zero, where the real div_Float gives ±Inf by the dividend's sign
      // (so 0.0 / 0.0 is Inf, not NaN).
      return y === 0 ? (x >= 0 ? Infinity : -Infinity) : x / y;
    case '%':
      return x % y;
    case '**':
      return Math.pow(x, y);
  }
}

function intPow(base: bigint, exp: bigint): bigint {
  if (exp < 0n) throw new AilRuntimeError('negative exponent in int ** int');
  let result = 1n;
  let b = wrap(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = wrap(result * b);
    b = wrap(b * b);
    e >>= 1n;
  }
  return result;
}

/**
 * `<`, `>`, `<=`, `>=` on ints, floats (IEEE 754: every comparison with NaN is false) and strings
 * (code-point order), as the real lt_/le_/gt_/ge_ builtins compute them.
 */
export function ordered(op: '<' | '>' | '<=' | '>=', a: Value, b: Value): boolean {
  let x: number | bigint;
  let y: number | bigint;
  if (typeof a === 'string') {
    x = compareStrings(a, b as string);
    y = 0;
  } else if (typeof a === 'bigint' && typeof b === 'bigint') {
    x = a;
    y = b;
  } else {
    x = Number(a);
    y = Number(b as number);
  }
  return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
}
