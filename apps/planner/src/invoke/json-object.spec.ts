import { canonicalBytes, makeJsonObject, sha256Hex, InvalidEnvelopeError } from '@world/canonical';
import { jsonObject, requestHashOf } from './json-object.js';

describe('jsonObject', () => {
  const values: Array<[string, unknown]> = [
    ['an object', { b: [1, 'two', null], a: { é: 'ü', '\u2028': 1e21 } }],
    ['null', null],
    ['a string with escapes', 'line\n"quoted"\t\\'],
    ['a large text', { content: 'x'.repeat(5000) }],
  ];

  it.each(values)('makes what makeJsonObject makes for %s', (_name, value) => {
    for (let i = 0; i < 2; i++) {
      expect(jsonObject('world/invocation-input/v1', 'coordinator:mcp', value)).toEqual(
        makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', value),
      );
    }
  });

  it('refuses what makeJsonObject refuses, value first', () => {
    expect(() => jsonObject('bad id!', 'coordinator:mcp', 1)).toThrow(InvalidEnvelopeError);
    expect(() => jsonObject('world/x/v1', 'p'.repeat(257), 1)).toThrow(InvalidEnvelopeError);
    expect(() => jsonObject('bad id!', 'coordinator:mcp', Number.NaN)).toThrow(TypeError);
  });
});

describe('requestHashOf', () => {
  it.each([
    ['an object', 'ailang-read', { path: 'a.txt', opts: { z: 1, a: [true] } }],
    ['null arguments', 'ailang-list', null],
    ['a tool id to escape', 'tool"\\\u0001', ['x']],
  ])('is sha256 of the canonical {tool, arguments} for %s', (_name, tool, args) => {
    expect(requestHashOf(tool, canonicalBytes(args))).toBe(
      sha256Hex(canonicalBytes({ tool, arguments: args })),
    );
  });

  it.each([
    [
      'ailang-read',
      { path: 'hello.ail', content: 'é\u2028\ud83d\ude00' },
      'a5e43dbe2eb45fbc8b672fbc6e5832ea3547a72a0e1b69d0ee2c51664901ba76',
    ],
    ['ailang-read', null, 'c43da268b064e0e541663bd0cf5befee14778f3026e0a8a1deac4b52b43f7c6e'],
  ])('keeps the hash a resend is checked against: %s %j', (tool, args, hash) => {
    expect(requestHashOf(tool, canonicalBytes(args))).toBe(hash);
  });
});
