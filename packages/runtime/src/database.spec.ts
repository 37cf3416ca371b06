// Named statements on PGlite run as server-side prepared statements (runPrepared in database.ts).
// These tests hold them to what the unnamed path (PGlite.query) returns and throws.
import { messages } from '@electric-sql/pglite';
import { openPglite, type DatabaseHandle } from './database.js';

const SELECT_KINDS = `SELECT k, n, b, a, f, z, j, t FROM kinds WHERE k = $1`;
const INSERT_KIND = `INSERT INTO kinds (k, n, b, a, f, z, j, t) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

describe('named statements on PGlite', () => {
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = await openPglite();
    await handle.query(
      `CREATE TABLE kinds (k text PRIMARY KEY, n int8, b bytea, a text[], f boolean, z text,
         j jsonb, t timestamptz)`,
    );
    await handle.query(INSERT_KIND, [
      'one',
      9007199254740993n,
      new Uint8Array([0, 1, 254, 255]),
      ['x', 'y,z', '"q"'],
      true,
      null,
      { deep: [1, 'two', null], flag: false },
      new Date('2024-02-03T04:05:06.789Z'),
    ]);
    await handle.query(INSERT_KIND, ['two', 42, null, [], false, 'zed', [1, 2], null]);
  });
  afterAll(() => handle.close());

  it('returns the same rows, with the same JS types, as PGlite.query', async () => {
    const named = await handle.query(SELECT_KINDS, ['one'], 'spec_select_kinds');
    const unnamed = await handle.query(SELECT_KINDS, ['one']);
    expect(named).toEqual(unnamed);
    expect(named.rowCount).toBe(1);
    const [row] = named.rows as Array<Record<string, unknown>>;
    expect(row).toStrictEqual({
      k: 'one',
      n: 9007199254740993n,
      b: new Uint8Array([0, 1, 254, 255]),
      a: ['x', 'y,z', '"q"'],
      f: true,
      z: null,
      j: { deep: [1, 'two', null], flag: false },
      t: new Date('2024-02-03T04:05:06.789Z'),
    });
    expect(row!.b).toBeInstanceOf(Uint8Array);
  });

  it('sends bytea and bytea[] parameters byte for byte', async () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const slice = Buffer.from([9, 0, 10, 255, 16, 9]).subarray(1, 5); // byteOffset 1
    const text = `SELECT encode($1::bytea, 'hex') AS one,
      array(SELECT encode(x, 'hex') FROM unnest($2::bytea[]) x) AS many`;
    const { rows } = await handle.query(text, [all, [slice, new Uint8Array(0)]], 'spec_bytea_hex');
    expect(rows).toEqual([{ one: Buffer.from(all).toString('hex'), many: ['000aff10', ''] }]);
    await expect(handle.query(text, ['not bytes', []], 'spec_bytea_hex')).rejects.toThrow(
      'Invalid input for bytea type',
    );
  });

  it('runs a prepared statement again with other parameters', async () => {
    const two = await handle.query(SELECT_KINDS, ['two'], 'spec_select_kinds');
    expect(two.rows).toStrictEqual([
      { k: 'two', n: 42, b: null, a: [], f: false, z: 'zed', j: [1, 2], t: null },
    ]);
    expect(two).toEqual(await handle.query(SELECT_KINDS, ['two']));
    const none = await handle.query(SELECT_KINDS, ['three'], 'spec_select_kinds');
    expect(none).toEqual({ rows: [], rowCount: 0 });
  });

  it('counts the rows of INSERT, UPDATE and DELETE without RETURNING', async () => {
    await handle.query('CREATE TABLE counts (k int PRIMARY KEY, v int NOT NULL)');
    const insert = 'INSERT INTO counts (k, v) SELECT g, 0 FROM generate_series(1, $1::int) g';
    expect(await handle.query(insert, [3], 'spec_counts_insert')).toEqual({
      rows: [],
      rowCount: 3,
    });
    const update = 'UPDATE counts SET v = v + 1 WHERE k <= $1';
    expect(await handle.query(update, [2], 'spec_counts_update')).toEqual({
      rows: [],
      rowCount: 2,
    });
    expect(await handle.query(update, [0], 'spec_counts_update')).toEqual({
      rows: [],
      rowCount: 0,
    });
    expect(await handle.query(update, [2])).toEqual({ rows: [], rowCount: 2 });
    const del = 'DELETE FROM counts WHERE k = $1';
    expect(await handle.query(del, [3], 'spec_counts_delete')).toEqual({ rows: [], rowCount: 1 });
    const { rows } = await handle.query(
      'SELECT k, v FROM counts ORDER BY k',
      [],
      'spec_counts_all',
    );
    expect(rows).toEqual([
      { k: 1, v: 2 },
      { k: 2, v: 2 },
    ]);
  });

  it('throws the error PGlite.query throws, and the instance stays usable', async () => {
    const named = await handle
      .query(INSERT_KIND, ['one', 1, null, null, null, null, null, null], 'spec_insert_kind')
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    const unnamed = await handle
      .query(INSERT_KIND, ['one', 1, null, null, null, null, null, null])
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(named).toBeInstanceOf(messages.DatabaseError);
    expect(named).toMatchObject({
      code: '23505',
      message: 'duplicate key value violates unique constraint "kinds_pkey"',
      constraint: 'kinds_pkey',
      query: INSERT_KIND,
    });
    expect(unnamed).toBeInstanceOf(messages.DatabaseError);
    expect({ ...(named as object) }).toEqual({ ...(unnamed as object) });

    await handle.query(
      INSERT_KIND,
      ['three', 3, null, null, null, null, null, null],
      'spec_insert_kind',
    );
    const { rows } = await handle.query(SELECT_KINDS, ['three'], 'spec_select_kinds');
    expect(rows).toMatchObject([{ k: 'three', n: 3 }]);
    await handle.query('DELETE FROM kinds WHERE k = $1', ['three']);
  });

  it('throws the parse error of a bad statement and prepares nothing under its name', async () => {
    await expect(handle.query('SELECT nope FROM kinds', [], 'spec_bad')).rejects.toMatchObject({
      code: '42703',
      message: 'column "nope" does not exist',
    });
    // the name was not taken: it can be prepared with a good text
    const { rows } = await handle.query('SELECT count(*)::int AS n FROM kinds', [], 'spec_bad');
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('refuses a known name with another text', async () => {
    await expect(handle.query('SELECT 2 AS two', [], 'spec_select_kinds')).rejects.toThrow(
      'statement name "spec_select_kinds" is already prepared with another text',
    );
  });

  it('rolls the whole transaction back when a statement in it fails', async () => {
    await handle.query('CREATE TABLE moves (k text PRIMARY KEY)');
    const insert = 'INSERT INTO moves (k) VALUES ($1)';
    await expect(
      handle.transaction(async (q) => {
        await q(insert, ['a'], 'spec_moves_insert');
        await q(insert, ['b'], 'spec_moves_insert');
        await q(insert, ['a'], 'spec_moves_insert');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const count = 'SELECT count(*)::int AS n FROM moves';
    expect((await handle.query(count, [], 'spec_moves_count')).rows).toEqual([{ n: 0 }]);

    // a statement failing and caught inside leaves the transaction aborted: COMMIT rolls back
    await expect(
      handle.transaction(async (q) => {
        await q(insert, ['c'], 'spec_moves_insert');
        await q(insert, ['c'], 'spec_moves_insert').catch(() => undefined);
        await q(count, [], 'spec_moves_count');
      }),
    ).rejects.toMatchObject({ code: '25P02' });
    expect((await handle.query(count, [], 'spec_moves_count')).rows).toEqual([{ n: 0 }]);

    await handle.transaction(async (q) => {
      await q(insert, ['d'], 'spec_moves_insert');
      expect((await q(count, [], 'spec_moves_count')).rows).toEqual([{ n: 1 }]);
    });
    expect((await handle.query(count, [], 'spec_moves_count')).rows).toEqual([{ n: 1 }]);
  });

  it('keeps a statement prepared inside a rolled-back transaction', async () => {
    const text = 'SELECT k FROM moves ORDER BY k';
    await expect(
      handle.transaction(async (q) => {
        await q(text, [], 'spec_moves_keys');
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect((await handle.query(text, [], 'spec_moves_keys')).rows).toEqual([{ k: 'd' }]);
  });

  it('waits for another flow’s open transaction before running outside it', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = handle.transaction(async (q) => {
      await q("INSERT INTO moves (k) VALUES ('e')");
      order.push('tx wrote');
      await held;
      order.push('tx ends');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const outside = handle
      .query('SELECT count(*)::int AS n FROM moves', [], 'spec_moves_count')
      .then((r) => {
        order.push('outside read');
        return r.rows;
      });
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await tx;
    expect(await outside).toEqual([{ n: 2 }]);
    expect(order).toEqual(['tx wrote', 'tx ends', 'outside read']);
  });

  it('delivers a NOTIFY sent by a named statement', async () => {
    const payloads: string[] = [];
    const off = await handle.listen('spec_channel', (p) => payloads.push(p));
    await handle.query('SELECT pg_notify($1, $2)', ['spec_channel', 'hello'], 'spec_notify');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(payloads).toEqual(['hello']);
    await off();
  });

  it('refuses a closed transaction’s runner', async () => {
    let kept!: Parameters<Parameters<DatabaseHandle['transaction']>[0]>[0];
    await handle.transaction(async (q) => {
      kept = q;
    });
    await expect(kept('SELECT 1', [], 'spec_one')).rejects.toThrow('Transaction is closed');
  });
});
