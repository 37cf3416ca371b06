import { jsonOf } from './reads.js';

describe('jsonOf', () => {
  it('parses a payload once: every look at the same bytes gets the same value', () => {
    const payload = Buffer.from('{"path":"a.txt","content":"x"}');
    const value = jsonOf(payload);
    expect(value).toEqual({ path: 'a.txt', content: 'x' });
    expect(jsonOf(payload)).toBe(value);
    // another read of the same bytes is parsed on its own
    const again = jsonOf(Buffer.from(payload));
    expect(again).toEqual(value);
    expect(again).not.toBe(value);
  });

  it('answers undefined for bytes that are not JSON, every time', () => {
    const payload = Buffer.from('not json');
    expect(jsonOf(payload)).toBeUndefined();
    expect(jsonOf(payload)).toBeUndefined();
  });
});
