import { area, type BuiltinSpec, type Row } from './area.js';

/**
 * std/math and the operator builtins (ailang.md §2.3). The std/math exports wrap `_math_sqrt` and
 * the rest. The real registry also exposes, in every module, the monomorphic builtins operators
 * lower to (`add_Int`, `eq_String`, `not_Bool`, `concat_String`; its op table) and the
 * conversions `intToFloat` / `floatToInt` (filed under `std/prelude`), which std/math re-exports.
 */

const arith = (op: string, doc: string): Row[] =>
  (['Int', 'Float'] as const).map((t) => [
    null,
    `${op}_${t}`,
    'a,b',
    `(${t.toLowerCase()}, ${t.toLowerCase()}) -> ${t.toLowerCase()}`,
    `${doc} (${t === 'Int' ? 'int64' : 'IEEE 754'})`,
  ]);

const compare = (op: string, types: readonly string[], doc: string): Row[] =>
  types.map((t) => [
    null,
    `${op}_${t}`,
    'a,b',
    `(${t.toLowerCase()}, ${t.toLowerCase()}) -> bool`,
    `${doc} (${t.toLowerCase()})`,
  ]);

const ALL = ['Int', 'Float', 'String', 'Bool'];
const ORDERED = ['Int', 'Float', 'String'];

export const NUMBERS: readonly BuiltinSpec[] = [
  ...area('std/math', [
    ['sin', '_math_sin', 'x', '(float) -> float', 'Sine of an angle in radians'],
    ['cos', '_math_cos', 'x', '(float) -> float', 'Cosine of an angle in radians'],
    ['tan', '_math_tan', 'x', '(float) -> float', 'Tangent of an angle in radians'],
    ['asin', '_math_asin', 'x', '(float) -> float', 'Arcsine, in radians'],
    ['acos', '_math_acos', 'x', '(float) -> float', 'Arccosine, in radians'],
    ['atan', '_math_atan', 'x', '(float) -> float', 'Arctangent, in radians'],
    [
      'atan2',
      '_math_atan2',
      'y,x',
      '(float, float) -> float',
      'Angle of the point (x, y) in radians',
    ],
    ['sqrt', '_math_sqrt', 'x', '(float) -> float', 'Square root'],
    ['pow', '_math_pow', 'x,y', '(float, float) -> float', 'x raised to the power y'],
    ['exp', '_math_exp', 'x', '(float) -> float', 'e raised to x'],
    ['log', '_math_log', 'x', '(float) -> float', 'Natural logarithm'],
    ['log10', '_math_log10', 'x', '(float) -> float', 'Base-10 logarithm'],
    ['floor', '_math_floor', 'x', '(float) -> float', 'Round down'],
    ['ceil', '_math_ceil', 'x', '(float) -> float', 'Round up'],
    ['round', '_math_round', 'x', '(float) -> float', 'Round to nearest, halves away from zero'],
    ['abs_Int', '_math_abs_Int', 'x', '(int) -> int', 'Absolute value of an int'],
    ['abs_Float', '_math_abs_Float', 'x', '(float) -> float', 'Absolute value of a float'],
    ['PI', '_math_PI', '', '() -> float', 'The constant π'],
    ['E', '_math_E', '', '() -> float', "Euler's number e"],
    ...arith('add', 'Add'),
    ...arith('sub', 'Subtract'),
    ...arith('mul', 'Multiply'),
    ...arith('div', 'Divide: int truncates and fails on 0, float gives ±Inf on 0'),
    ...arith('mod', 'Remainder: int fails on 0, float gives NaN on 0'),
    [null, 'neg_Int', 'a', '(int) -> int', 'Negate an int'],
    [null, 'neg_Float', 'a', '(float) -> float', 'Negate a float'],
  ]),
  ...area('std/prelude', [
    [null, 'intToFloat', 'n', '(int) -> float', 'Convert an int to float'],
    [null, 'floatToInt', 'x', '(float) -> int', 'Truncate a float toward zero'],
    ...compare('eq', ALL, 'Equality'),
    ...compare('ne', ALL, 'Inequality'),
    ...compare('lt', ORDERED, 'Less than'),
    ...compare('le', ORDERED, 'Less than or equal'),
    ...compare('gt', ORDERED, 'Greater than'),
    ...compare('ge', ORDERED, 'Greater than or equal'),
    [null, 'and_Bool', 'a,b', '(bool, bool) -> bool', 'Logical and (both arguments evaluated)'],
    [null, 'or_Bool', 'a,b', '(bool, bool) -> bool', 'Logical or (both arguments evaluated)'],
    [null, 'not_Bool', 'a', '(bool) -> bool', 'Logical not'],
  ]),
  ...area('core', [
    [null, '_int_to_float', 'n', '(int) -> float', 'Convert an int to float'],
    [null, '_float_to_int', 'x', '(float) -> int', 'Truncate a float toward zero'],
  ]),
];

/** Exports of a std module that name a raw builtin filed elsewhere: [module, export, raw name]. */
export const NUMBER_REEXPORTS: readonly [string, string, string][] = [
  ['std/math', 'intToFloat', 'intToFloat'],
  ['std/math', 'floatToInt', 'floatToInt'],
];
