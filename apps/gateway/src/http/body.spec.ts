import { BadRequestError } from '@world/contracts';
import { decodeJsonBody, parseJsonObject } from './body.js';

describe('decodeJsonBody (RFC 8259 §8.1: JSON text is UTF-8; no U+FFFD substitution)', () => {
  it.each<[string, Buffer, ReturnType<typeof decodeJsonBody>['ok'], string | undefined]>([
    ['a UTF-8 object', Buffer.from('{"a":"é"}'), true, undefined],
    [
      'a lone 0xFF byte inside a string',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      false,
      'utf8',
    ],
    ['a truncated two-byte sequence', Buffer.from([0x22, 0xc3, 0x22]), false, 'utf8'],
    ['an encoded surrogate (CESU-8)', Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), false, 'utf8'],
    ['valid UTF-8 that is not JSON', Buffer.from('{"a":'), false, 'json'],
    ['a trailing value', Buffer.from('{} {}'), false, 'json'],
  ])('%s', (_name, bytes, ok, reason) => {
    const decoded = decodeJsonBody(bytes);
    expect([decoded.ok, decoded.ok ? undefined : decoded.reason]).toEqual([ok, reason]);
  });

  it('keeps an own __proto__ key as data', () => {
    const decoded = decodeJsonBody(Buffer.from('{"__proto__":{"x":1}}'));
    expect(decoded.ok && Object.keys(decoded.value as object)).toEqual(['__proto__']);
  });
});

describe('parseJsonObject (world-spec §5.10)', () => {
  it.each([
    [Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 'body is not valid UTF-8'],
    [Buffer.from('[1]'), 'body must be a JSON object'],
  ])('refuses %j with %j', (bytes, message) => {
    expect(() => parseJsonObject(bytes)).toThrow(new BadRequestError(message));
  });
});
