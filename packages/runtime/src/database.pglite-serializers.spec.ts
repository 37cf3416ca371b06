// Review finding (8b0d549): `openPglite()` without a data directory calls
// `new PGlite(undefined, { serializers })`. PGlite's constructor defaults its FIRST parameter to
// `{}` when it is undefined and then takes that object as the options, so the second argument —
// and with it the bytea serializer `serializeBytea` — is silently dropped for every in-memory
// instance (all PGlite test suites). Only a handle opened on a data directory gets it, so the
// bytea tests in database.spec.ts exercise PGlite's own serializer, not serializeBytea.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { openPglite, type DatabaseHandle } from './database.js';

const clientOf = (handle: DatabaseHandle): PGlite =>
  (handle.db as unknown as { $client: PGlite }).$client;

describe('openPglite installs the bytea serializer', () => {
  it('PGlite drops the options argument when the data directory is undefined', async () => {
    const mine = (x: unknown) => String(x);
    const client = new PGlite(undefined, { serializers: { [types.BYTEA]: mine } });
    await client.waitReady;
    try {
      expect(client.serializers[types.BYTEA]).not.toBe(mine); // dropped
    } finally {
      await client.close();
    }
  });

  it('on a data directory (the embedded default)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pglite-ser-'));
    const handle = await openPglite(dir);
    try {
      expect(clientOf(handle).serializers[types.BYTEA]!.name).toBe('serializeBytea');
      // serializeBytea itself, which only this kind of handle runs: byte for byte, named or not
      const all = Uint8Array.from({ length: 256 }, (_, i) => i);
      const slice = Buffer.from([9, 0, 10, 255, 16, 9]).subarray(1, 5);
      const text = `SELECT encode($1::bytea, 'hex') AS one,
        array(SELECT encode(x, 'hex') FROM unnest($2::bytea[]) x) AS many`;
      const expected = [{ one: Buffer.from(all).toString('hex'), many: ['000aff10', ''] }];
      const params = [all, [slice, new Uint8Array(0)]];
      expect((await handle.query(text, params, 'ser_bytea_named')).rows).toEqual(expected);
      expect((await handle.query(text, params)).rows).toEqual(expected);
      await expect(handle.query(text, ['not bytes', []], 'ser_bytea_named')).rejects.toThrow(
        'Invalid input for bytea type',
      );
    } finally {
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('in memory (every PGlite test suite): serializeBytea is used too', async () => {
    const handle = await openPglite();
    try {
      expect(clientOf(handle).serializers[types.BYTEA]!.name).toBe('serializeBytea');
    } finally {
      await handle.close();
    }
  });
});
