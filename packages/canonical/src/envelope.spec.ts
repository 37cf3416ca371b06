import {
  fromWireObject,
  interfaceHashOf,
  makeJsonObject,
  ObjectHashMismatchError,
  toWireObject,
  verifyObject,
} from './envelope.js';
import { InvalidBase64Error, decodeBase64 } from './base64.js';
import { refOf } from './ref.js';

describe('object envelope (world-spec §2.13)', () => {
  const object = makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', { path: 'a.txt' });

  it('addresses the canonical payload bytes and hashes the semantic id as interface', () => {
    expect(object.payload.toString('utf8')).toBe('{"path":"a.txt"}');
    expect(object.hash).toBe(refOf('{"path":"a.txt"}'));
    expect(object.interfaceHash).toBe(interfaceHashOf('world/invocation-input/v1'));
    expect(verifyObject(object)).toBe(object);
  });

  it('round-trips through the wire form', () => {
    const wire = toWireObject(object);
    expect(wire.payload).toBe(Buffer.from('{"path":"a.txt"}').toString('base64'));
    expect(fromWireObject(wire)).toEqual(object);
  });

  it('refuses an object whose payload does not match its hash', () => {
    const wire = {
      ...toWireObject(object),
      payload: Buffer.from('{"path":"b.txt"}').toString('base64'),
    };
    expect(() => fromWireObject(wire)).toThrow(ObjectHashMismatchError);
    expect(() => fromWireObject(wire)).toThrow(
      `object hash ${object.hash} does not match its payload (sha256 ${refOf('{"path":"b.txt"}')})`,
    );
  });

  it('refuses non-canonical base64', () => {
    expect(() => decodeBase64('abc', 'objects[0].payload')).toThrow(
      new InvalidBase64Error('objects[0].payload'),
    );
    expect(() => decodeBase64('ab$=')).toThrow(InvalidBase64Error);
    expect(decodeBase64('YWJj').toString()).toBe('abc');
  });

  it('checks every character of a long text, not only its ends', () => {
    const text = Buffer.from('x'.repeat(300_000)).toString('base64');
    expect(decodeBase64(text).equals(Buffer.from('x'.repeat(300_000)))).toBe(true);
    const at = (i: number, c: string) => text.slice(0, i) + c + text.slice(i + 1);
    // Node's own decoder would take each of these: it skips a space, reads - and _ as + and /,
    // stops at a =, and reads a character beyond Latin-1 by its low byte (U+0145 as E)
    for (const bad of [
      at(200_000, ' '),
      at(200_000, '-'),
      at(200_000, '_'),
      at(200_000, '='),
      at(200_000, '\u0145'),
      `${text.slice(0, 200_000)}\n${text.slice(200_000, -1)}`,
      text.slice(1),
    ])
      expect(() => decodeBase64(bad, 'payload')).toThrow(new InvalidBase64Error('payload'));
    expect(decodeBase64('').length).toBe(0);
    expect(decodeBase64('YQ==').toString()).toBe('a');
    expect(decodeBase64('YWI=').toString()).toBe('ab');
    // the last quantum's unused bits are not judged (RFC 4648 §3.5 lets an encoder set them)
    expect(decodeBase64('YR==').toString()).toBe('a');
    for (const bad of ['YQ=', 'Y===', '=YQ=', 'YQ==YQ==', 'YQ\u00e9='])
      expect(() => decodeBase64(bad)).toThrow(InvalidBase64Error);
  });

  it('refuses a malformed semantic id', () => {
    expect(() => makeJsonObject('', 'p', {})).toThrow(
      'semanticId: must be 1-256 characters of [A-Za-z0-9._:/-]',
    );
    expect(() => makeJsonObject('a b', 'p', {})).toThrow('semanticId');
  });
});
