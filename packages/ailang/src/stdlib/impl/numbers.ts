import { AilRuntimeError, showFloat, wrap, type BuiltinImpl } from '../../runtime/values.js';
import { flt, int } from './common.js';

/** std/math and the prelude conversions (stdlib/catalogue/numbers.ts). */

function roundHalfAway(x: number): number {
  const r = Math.sign(x) * Math.round(Math.abs(x));
  return r === 0 ? x * 0 : r;
}

// 2^63: a float outside [-2^63, 2^63) has no int64 value; the real conversion's result
// there is machine-specific, so the embedded one refuses instead of picking one.
const INT64_BOUND = 2 ** 63;

/** `floatToInt`: truncation toward zero, refused outside int64. */
export function floatToInt(x: number): bigint {
  if (!Number.isFinite(x) || Math.trunc(x) >= INT64_BOUND || Math.trunc(x) < -INT64_BOUND)
    throw new AilRuntimeError(`floatToInt: ${showFloat(x)} has no int value`);
  return BigInt(Math.trunc(x));
}

export const MATH_IMPLS: Record<string, BuiltinImpl> = {
  _math_sqrt: ([x]) => Math.sqrt(flt(x!)),
  _math_pow: ([x, y]) => Math.pow(flt(x!), flt(y!)),
  _math_exp: ([x]) => Math.exp(flt(x!)),
  _math_log: ([x]) => Math.log(flt(x!)),
  _math_log10: ([x]) => Math.log10(flt(x!)),
  _math_sin: ([x]) => Math.sin(flt(x!)),
  _math_cos: ([x]) => Math.cos(flt(x!)),
  _math_tan: ([x]) => Math.tan(flt(x!)),
  _math_atan2: ([y, x]) => Math.atan2(flt(y!), flt(x!)),
  _math_floor: ([x]) => Math.floor(flt(x!)),
  _math_ceil: ([x]) => Math.ceil(flt(x!)),
  _math_round: ([x]) => roundHalfAway(flt(x!)),
  floatToInt: ([x]) => floatToInt(flt(x!)),
  intToFloat: ([x]) => Number(int(x!)),
  _float_to_int: ([x]) => floatToInt(flt(x!)),
  _int_to_float: ([x]) => Number(int(x!)),
  _math_asin: ([x]) => Math.asin(flt(x!)),
  _math_acos: ([x]) => Math.acos(flt(x!)),
  _math_atan: ([x]) => Math.atan(flt(x!)),
  _math_abs_Int: ([x]) => wrap(int(x!) < 0n ? -int(x!) : int(x!)),
  _math_abs_Float: ([x]) => Math.abs(flt(x!)),
  _math_PI: () => Math.PI,
  _math_E: () => Math.E,
};
