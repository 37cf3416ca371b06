import { refOf } from '@world/canonical';
import { isoTime, preview, refHex, shortRef } from './format.js';

describe('client formatting (world-spec §7.3)', () => {
  const ref = refOf('abc');
  it('shortens a ref to 8 hex digits and an ellipsis', () => {
    expect(shortRef(ref)).toBe(`sha256:${ref.slice(7, 15)}…`);
    expect(shortRef('-')).toBe('-');
  });
  it('gives the 8 hex digits of a log tail line', () => expect(refHex(ref)).toBe(ref.slice(7, 15)));
  it.each([
    ['a short string', 'hello', '"hello"'],
    ['an object', { path: 'a.txt' }, '{"path":"a.txt"}'],
    ['exactly 120 characters', 'x'.repeat(118), `"${'x'.repeat(118)}"`],
    [
      'a long value: elided with its byte count',
      'é'.repeat(200),
      `"${'é'.repeat(119)}… (402 bytes)`,
    ],
  ])('previews %s', (_row, value, text) => expect(preview(value)).toBe(text));
  it('prints times as ISO 8601 UTC to the second', () =>
    expect(isoTime(1_800_000_000_123)).toBe('2027-01-15T08:00:00Z'));
});
