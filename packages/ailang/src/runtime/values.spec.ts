import {
  AilRuntimeError,
  NONE,
  UNIT_V,
  listFrom,
  show,
  showFloat,
  some,
  valuesEqual,
  type Value,
} from './values.js';

const rec = (o: Record<string, Value>): Value => ({
  k: 'record',
  fields: new Map(Object.entries(o)),
});

describe('show (the real renderer: strings unquoted, floats with a point, records sorted)', () => {
  it.each<[string, Value, string]>([
    ['int', 42n, '42'],
    ['negative int', -7n, '-7'],
    ['whole float gets .0', 2, '2.0'],
    ['fraction', 3.25, '3.25'],
    ['large float never in exponent form', 1e20, '100000000000000000000.0'],
    ['tiny float never in exponent form', 1e-7, '0.0000001'],
    ['NaN', Number.NaN, 'NaN'],
    ['+Inf', Infinity, 'Inf'],
    ['-Inf', -Infinity, '-Inf'],
    ['negative zero', -0, '-0.0'],
    ['string unquoted', 'say "hi"', 'say "hi"'],
    ['bool', true, 'true'],
    ['unit', UNIT_V, '()'],
    ['list', listFrom([1n, 2n, 3n]), '[1, 2, 3]'],
    ['strings inside a list stay unquoted', listFrom(['a', 'b']), '[a, b]'],
    ['empty list', listFrom([]), '[]'],
    ['tuple', { k: 'tuple', items: [1n, 'x'] }, '(1, x)'],
    ['record sorted by field name', rec({ b: 1n, a: 'x' }), '{a: x, b: 1}'],
    ['empty record', rec({}), '{}'],
    ['constructor with a float', some(2), 'Some(2.0)'],
    ['nullary constructor', NONE, 'None'],
    ['function', { k: 'builtin', name: 'print', arity: 1, impl: () => UNIT_V }, '<function>'],
    [
      'depth beyond 3 elides',
      listFrom([listFrom([listFrom([listFrom([listFrom([1n])])])])]),
      '[[[[...]]]]',
    ],
    [
      'a container wider than 80 columns keeps its first and last 20',
      listFrom(Array.from({ length: 40 }, (_, i) => BigInt(i))),
      '[0, 1, 2, 3, 4, 5, 6... 35, 36, 37, 38, 39]',
    ],
  ])('%s', (_name, v, text) => {
    expect(show(v)).toBe(text);
  });

  it.each([
    [0.1, '0.1'],
    [123456.789, '123456.789'],
    [1e21, '1000000000000000000000.0'],
    [5e-324, `0.${'0'.repeat(323)}5`],
  ])('showFloat(%p) is %p', (x, text) => {
    expect(showFloat(x)).toBe(text);
  });
});

describe('valuesEqual (structural ==)', () => {
  it.each<[string, Value, Value, boolean]>([
    ['ints', 1n, 1n, true],
    ['an int literal meeting a float compares numerically', 2n, 2, true],
    ['lists', listFrom([1n, 2n]), listFrom([1n, 2n]), true],
    ['lists of different length', listFrom([1n]), listFrom([1n, 2n]), false],
    ['records whatever the field order', rec({ a: 1n, b: 'x' }), rec({ b: 'x', a: 1n }), true],
    ['constructors', some(1n), some(1n), true],
    ['different constructors', some(1n), NONE, false],
  ])('%s', (_name, a, b, eq) => {
    expect(valuesEqual(a, b)).toBe(eq);
  });

  it('refuses to compare functions', () => {
    const f: Value = { k: 'builtin', name: 'f', arity: 0, impl: () => UNIT_V };
    expect(() => valuesEqual(f, f)).toThrow(
      new AilRuntimeError('cannot compare functions with =='),
    );
  });
});
