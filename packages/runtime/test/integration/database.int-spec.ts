import { createTestDatabase, type TestDatabase } from '@world/testing';
import pg from 'pg';
import {
  CLIENT_CHECK_INTERVAL_MS,
  IDLE_IN_TRANSACTION_TIMEOUT_MS,
  openPostgres,
  type DatabaseHandle,
} from '../../src/index.js';

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

describe('a transaction left open by a paused client', () => {
  it('is ended by PostgreSQL after IDLE_IN_TRANSACTION_TIMEOUT_MS: its locks freed, its COMMIT never lands', async () => {
    const db = await createTestDatabase('idle_tx');
    const handle = await openPostgres(db.url, { max: 2 });
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    try {
      await handle.query('CREATE TABLE heads (k text PRIMARY KEY, n bigint NOT NULL)');
      await handle.query("INSERT INTO heads VALUES ('head', 0)");
      const paused = handle.transaction(async (q) => {
        await q("UPDATE heads SET n = 1 WHERE k = 'head'");
        // The client stops between its statements (as a SIGSTOPped process does).
        await new Promise((r) => setTimeout(r, IDLE_IN_TRANSACTION_TIMEOUT_MS + 1_000));
        await q("UPDATE heads SET n = 2 WHERE k = 'head'");
      });
      const outcome = paused.then(
        () => 'committed',
        (err: Error) => err.message,
      );
      // The row lock it held is free once PostgreSQL ended the session (FATAL 25P03), and the
      // paused client's next statement finds its connection gone.
      await other.query("SET lock_timeout = '10s'");
      const taken = await other.query<{ n: string }>(
        "UPDATE heads SET n = 10 WHERE k = 'head' RETURNING n",
      );
      expect(taken.rows).toEqual([{ n: '10' }]);
      expect(await outcome).toBe('Client has encountered a connection error and is not queryable');
      const { rows } = await other.query<{ n: string }>("SELECT n FROM heads WHERE k = 'head'");
      expect(rows).toEqual([{ n: '10' }]);
    } finally {
      await other.end();
      await handle.close();
      await db.drop();
    }
  }, 30_000);
});

describe('LISTEN across a lost connection', () => {
  it('listens again after its connection was ended, calls onRestored once per return (not at the first LISTEN), and delivers later notifications', async () => {
    const db = await createTestDatabase('listen');
    const handle = await openPostgres(db.url, { max: 3 });
    const payloads: string[] = [];
    let restored = 0;
    const stop = await handle.listen(
      'world_test_channel',
      (p) => payloads.push(p),
      () => restored++,
    );
    const terminate = async () => {
      const { rows } = await handle.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
           WHERE datname = current_database() AND query LIKE 'LISTEN %world_test_channel%'`,
      );
      expect(rows).toEqual([{ ended: true }]);
    };
    const until = async (count: number) => {
      for (let i = 0; i < 200 && restored < count; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      expect(restored).toBe(0);
      await terminate();
      await until(1);
      await terminate();
      await until(2);
      await handle.query("SELECT pg_notify('world_test_channel', 'after')");
      for (let i = 0; i < 200 && payloads.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      expect([restored, payloads]).toEqual([2, ['after']]);
    } finally {
      await stop();
      await handle.close();
      await db.drop();
    }
  });
});
