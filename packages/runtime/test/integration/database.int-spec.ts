import { createTestDatabase, type TestDatabase } from '@world/testing';
import { CLIENT_CHECK_INTERVAL_MS, openPostgres, type DatabaseHandle } from '../../src/index.js';

const drivers: Array<[string, () => Promise<{ handle: DatabaseHandle; db?: TestDatabase }>]> = [
  [
    'PostgreSQL',
    async () => {
      const db = await createTestDatabase('raw');
      return { handle: await openPostgres(db.url), db };
    },
  ],
];

describe.each(drivers)('raw statements and transactions on %s', (_name, open) => {
  let handle: DatabaseHandle;
  let db: TestDatabase | undefined;

  beforeAll(async () => {
    ({ handle, db } = await open());
    await handle.query('CREATE TABLE counters (k text PRIMARY KEY, n bigint NOT NULL)');
  });
  afterAll(async () => {
    await handle.close();
    await db?.drop();
  });

  it('runs a named statement repeatedly with its parameters', async () => {
    for (const k of ['a', 'b', 'a']) {
      await handle.query(
        'INSERT INTO counters (k, n) VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = counters.n + 1',
        [k],
        'counters_bump',
      );
    }
    const { rows, rowCount } = await handle.query<{ k: string; n: string }>(
      'SELECT k, n::text AS n FROM counters ORDER BY k',
    );
    expect(rows).toEqual([
      { k: 'a', n: '2' },
      { k: 'b', n: '1' },
    ]);
    expect(rowCount).toBe(2);
  });

  it('commits a transaction as a whole and rolls back one that throws', async () => {
    await handle.transaction(async (q) => {
      await q('INSERT INTO counters (k, n) VALUES ($1, 7)', ['c']);
      await q('UPDATE counters SET n = n + 1 WHERE k = $1', ['c']);
    });
    await expect(
      handle.transaction(async (q) => {
        await q('INSERT INTO counters (k, n) VALUES ($1, 1)', ['d']);
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    const { rows } = await handle.query<{ k: string; n: string }>(
      "SELECT k, n::text AS n FROM counters WHERE k IN ('c', 'd') ORDER BY k",
    );
    expect(rows).toEqual([{ k: 'c', n: '8' }]);
  });
});

describe('PostgreSQL session settings', () => {
  it('every pooled connection checks that its client is still there (client_connection_check_interval)', async () => {
    const db = await createTestDatabase('session');
    const handle = await openPostgres(db.url, { max: 2 });
    try {
      const shown = await Promise.all(
        [0, 1].map(() =>
          handle.transaction(async (q) => {
            const { rows } = await q<{ client_connection_check_interval: string }>(
              'SHOW client_connection_check_interval',
            );
            return rows[0]!.client_connection_check_interval;
          }),
        ),
      );
      expect(shown).toEqual([`${CLIENT_CHECK_INTERVAL_MS}ms`, `${CLIENT_CHECK_INTERVAL_MS}ms`]);
    } finally {
      await handle.close();
      await db.drop();
    }
  });
});
