import { canonicalSource } from './transition-source.js';

describe('canonicalSource (world-internals §4, canon.Source)', () => {
  it.each([
    ['a\r\nb\rc', 'a\nb\nc\n'],
    ['a  \t\nb', 'a\nb\n'],
    ['a\n\n\n', 'a\n'],
    ['', ''],
    ['\n\n', ''],
    ['x\n', 'x\n'],
  ])('%j → %j', (input, output) => {
    expect(canonicalSource(input)).toBe(output);
    expect(canonicalSource(output)).toBe(output);
  });

  it('refuses a BOM and NUL', () => {
    expect(() => canonicalSource('\uFEFFa')).toThrow('transition source must not start with a BOM');
    expect(() => canonicalSource('a\u0000')).toThrow('transition source must not contain NUL');
  });
});
