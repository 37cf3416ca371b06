import { InvalidRefError, parseRef, refOf, refProblem, ZERO_REF } from './ref.js';

const HEX = 'a'.repeat(64);

describe('parseRef (world-internals §4: the strict ref parser)', () => {
  it.each([
    ['', 'is empty'],
    [`sha256${HEX}`, 'has no algorithm (expected sha256:<64 lowercase hex>)'],
    [`sha256:${HEX}:x`, 'has more than one colon'],
    [`:${HEX}`, 'has an empty algorithm'],
    [`md5:${HEX}`, 'has unknown algorithm "md5"'],
    [`sha256:${'A'.repeat(64)}`, 'digest must be lowercase hex'],
    [`sha256:${'g'.repeat(64)}`, 'digest must be hex'],
    [`sha256:${'a'.repeat(63)}`, 'digest must be 64 hex characters'],
    [`sha256:${'a'.repeat(65)}`, 'digest must be 64 hex characters'],
    [ZERO_REF, 'is the zero ref'],
  ])('refuses %j: %s', (text, reason) => {
    expect(refProblem(text)).toBe(reason);
    expect(() => parseRef(text, 'observedHead')).toThrow(
      new InvalidRefError('observedHead', reason),
    );
  });

  it('accepts a lowercase sha256 ref and, when asked, the zero ref', () => {
    expect(parseRef(`sha256:${HEX}`)).toBe(`sha256:${HEX}`);
    expect(parseRef(ZERO_REF, 'x', { allowZero: true })).toBe(ZERO_REF);
  });

  it('refuses non-strings', () => {
    expect(refProblem(7)).toBe('must be a string');
  });

  it('computes sha256 refs of bytes and strings', () => {
    expect(refOf('')).toBe(
      'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(refOf(Buffer.from('abc'))).toBe(
      'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
