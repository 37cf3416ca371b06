import { canonicalBytes, canonicalJson, canonicalObjectOf } from './jcs.js';

describe('canonicalJson (RFC 8785)', () => {
  it.each([
    [{ b: 1, a: [true, null, 'x'] }, '{"a":[true,null,"x"],"b":1}'],
    [
      { numbers: [333333333.3333333, 1e30, 4.5, 0.002, 1e-27] },
      '{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27]}',
    ],
    [
      { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '1': 'One' },
      '{"\\r":"Carriage Return","1":"One","€":"Euro Sign"}',
    ],
    [{ s: '\u2028<>&é' }, '{"s":"\u2028<>&é"}'],
    [{ nested: { z: {}, y: [] } }, '{"nested":{"y":[],"z":{}}}'],
  ])('encodes %j as %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
    expect(canonicalBytes(value).toString('utf8')).toBe(text);
  });

  it('refuses values that are not JSON', () => {
    expect(() => canonicalJson(undefined)).toThrow('value is not representable as JSON');
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });
});

describe('canonicalObjectOf (RFC 8785 §3.2.3 around canonical member texts)', () => {
  it.each([
    ['two members out of order', { tool: 'ailang-read', arguments: { path: 'a', b: [1] } }],
    ['null and nested values', { z: null, a: { y: 1, x: '\u2028' } }],
    [
      'names sorted by UTF-16 code units',
      { '\u20ac': 1, '\r': 2, '1': 3, '\ud83d\ude00': 4, '\uffff': 5 },
    ],
    ['a name to escape', { 'a"\\\u0001': true }],
    ['no members', {}],
  ])('writes what canonicalJson writes for %s', (_row, value: Record<string, unknown>) => {
    const members = Object.fromEntries(
      Object.entries(value).map(([name, v]) => [name, canonicalJson(v)]),
    );
    expect(canonicalObjectOf(members)).toBe(canonicalJson(value));
  });
});
