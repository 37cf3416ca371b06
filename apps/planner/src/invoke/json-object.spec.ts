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
});
