import { InvalidRefError, makeJsonObject } from '@world/canonical';
import { Params, objectColumns } from './statements.js';

describe('Params (statement parameters numbered by name)', () => {
  const params = new Params([
    ['a', 'text'],
    ['b', 'bigint[]'],
    ['c', 'bytea'],
  ] as const);

  it.each<[string, 'a' | 'b' | 'c', string]>([
    ['the first is $1', 'a', '$1::text'],
    ['each carries its type', 'b', '$2::bigint[]'],
    ['the last is $n', 'c', '$3::bytea'],
  ])('%s', (_case, name, placeholder) => {
    expect(params.$(name)).toBe(placeholder);
  });

  it('lays values out in placeholder order, the first `count` of them', () => {
    expect(params.values({ c: 3, a: 1, b: [2] })).toEqual([1, [2], 3]);
    expect(params.values({ b: [2], a: 1 }, 2)).toEqual([1, [2]]);
  });

  it.each<[string, string, number]>([
    ['a text naming none takes none', 'SELECT 1', 0],
    ['a text takes the leading parameters it names', 'SELECT $1::text, $2::bigint[], $1::text', 2],
  ])('countIn: %s', (_case, text, count) => {
    expect(params.countIn(text)).toBe(count);
  });

  it('countIn refuses a text that skips a parameter (PostgreSQL could not type it)', () => {
    expect(() => params.countIn('SELECT $1::text, $3::bytea')).toThrow(
      'statement names $3 but not $2',
    );
  });

  it('refuses a parameter without a value', () => {
    expect(() => params.values({ a: 1, c: 3 })).toThrow('statement parameter b has no value');
  });
});

describe('objectColumns (world-internals §12 incident 1: no malformed ref is written)', () => {
  const o = makeJsonObject('world/demo/v1', 'operator', { n: 1 });

  it('gives the five arrays of the objects insert, in object order', () => {
    const p = makeJsonObject('world/demo/v1', 'operator', { n: 2 });
    expect(objectColumns([o, p])).toEqual({
      hashes: [o.hash, p.hash],
      interfaceHashes: [o.interfaceHash, p.interfaceHash],
      semanticIds: ['world/demo/v1', 'world/demo/v1'],
      provenances: ['operator', 'operator'],
      payloads: [o.payload, p.payload],
    });
  });

  it.each<[string, (i: number) => string, string]>([
    ['names objects[i] by default', (i) => `objects[${i}]`, 'objects[1].interfaceHash'],
    [
      'names the field the caller gives',
      (i) => (i === 0 ? 'object' : 'archived'),
      'archived.interfaceHash',
    ],
  ])('%s', (_case, field, named) => {
    const bad = { ...o, interfaceHash: 'sha256:zz' as typeof o.interfaceHash };
    const thrown = (() => {
      try {
        objectColumns([o, bad], field);
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(InvalidRefError);
    expect((thrown as Error).message.startsWith(`${named}:`)).toBe(true);
  });
});
