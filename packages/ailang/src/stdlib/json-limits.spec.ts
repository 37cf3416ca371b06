import { JSON_IMPLS, encodeJson } from './impl/json.js';
import type { CtorValue, Value } from '../runtime/values.js';
import { listItems, type ListValue } from '../runtime/values.js';

/**
 * std/json numbers and nesting as the real `_json_decode` has them (packages/ailang/README.md
 * "std/json numbers and nesting"): Go's json.Decoder token stream with UseNumber, an integer
 * literal through json.Number.Int64 and any other through Float64, range errors ignored, and no
 * nesting limit (the token stream keeps its own stack).
 */

const decode = (text: string): Value => JSON_IMPLS._json_decode!([text], null as never);
const okValue = (r: Value): CtorValue => {
  const c = r as CtorValue;
  if (c.name !== 'Ok') throw new Error(`expected Ok, got ${c.name}(${String(c.args[0])})`);
  return c.args[0] as CtorValue;
};
const numberOf = (text: string): number => okValue(decode(text)).args[0] as number;

describe('std/json decode: numbers (the real makeJNumber)', () => {
  it('clamps an integer literal past int64 to its bounds, as json.Number.Int64 does', () => {
    expect([
      numberOf('12345678901234567890'),
      numberOf('-12345678901234567890'),
      numberOf('9007199254740993'),
    ]).toEqual([2 ** 63, -(2 ** 63), 9007199254740992]);
  });

  it('rounds a literal with a fraction or exponent correctly, as json.Number.Float64 does', () => {
    expect([numberOf('12345678901234567890.0'), numberOf('1.2345678901234567890e19')]).toEqual([
      12345678901234567000, 12345678901234567000,
    ]);
  });

  it('makes a float literal past the float range ±Inf, which encode writes as null', () => {
    expect([numberOf('1e400'), numberOf('-1e400'), numberOf('1e-400')]).toEqual([
      Infinity,
      -Infinity,
      0,
    ]);
    expect(encodeJson(okValue(decode('[1e400]')))).toBe('[null]');
  });
});

describe('std/json: nesting is not bounded by the call stack', () => {
  const DEPTH = 200_000;

  it('decodes and re-encodes arrays nested 200,000 deep', () => {
    const text = `${'['.repeat(DEPTH)}1${']'.repeat(DEPTH)}`;
    let j = okValue(decode(text));
    let depth = 0;
    while (j.name === 'JArray') {
      depth++;
      j = listItems(j.args[0] as ListValue)[0] as CtorValue;
    }
    expect([depth, j.name, j.args[0]]).toEqual([DEPTH, 'JNumber', 1]);
    expect(encodeJson(okValue(decode(text)))).toBe(text);
  });

  it('decodes objects nested 200,000 deep', () => {
    const text = `${'{"a":'.repeat(DEPTH)}null${'}'.repeat(DEPTH)}`;
    expect(encodeJson(okValue(decode(text)))).toBe(text);
  });

  it('keeps the syntax errors of the token stream inside deep nesting', () => {
    expect([decode('[[1,]]'), decode('{"a":1,}'), decode('[[1 2]]'), decode('[[[')]).toEqual([
      {
        k: 'ctor',
        name: 'Err',
        args: ["invalid json: invalid character ']' looking for beginning of value"],
      },
      {
        k: 'ctor',
        name: 'Err',
        args: ["invalid json: invalid character '}' looking for beginning of object key string"],
      },
      { k: 'ctor', name: 'Err', args: ["invalid json: invalid character '2' after array element"] },
      { k: 'ctor', name: 'Err', args: ['invalid json: unexpected EOF'] },
    ]);
  });
});
