import { canonicalBytes, canonicalJson } from './jcs.js';

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
