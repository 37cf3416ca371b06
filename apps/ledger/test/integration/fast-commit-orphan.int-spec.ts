/**
 * Review finding (0eb350c), PostgreSQL only: the lone commit's one statement is autocommit, sent
 * with its Sync. A ledger that dies while APPEND_ON_HEAD waits on the head row lock (held by
 * something that does not move the head: a replay, a refused REST commit, a rolled-back group)
 * must leave nothing, as the commit transaction does (no COMMIT sent). Every World connection
 * sets `client_connection_check_interval` (runtime POSTGRES_SESSION_OPTIONS), so the backend
 * cancels the orphaned statement before the lock frees.
 */
import pg from 'pg';
import { parseRequest, type ParsedRequestOf, type RequestOf } from '@world/contracts';
import {
  POSTGRES_SESSION_OPTIONS,
  openPostgres,
  type DatabaseHandle,
  type RawQuery,
} from '@world/runtime';
import { createTestDatabase, eventually, type TestDatabase } from '@world/testing';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
} from '../../src/constants.js';
import { bootstrapGenesis } from '../../src/genesis/bootstrap-genesis.js';
import {
  commitAlone,
  commitPrepared,
  prepareCommit,
  type CommitDeps,
} from '../../src/commit/commit-invocation.js';
import { CommitRepository } from '../../src/commit/commit.repository.js';
import { toolCall } from '../support.js';

const parsed = (request: RequestOf<'ledger.commit'>): ParsedRequestOf<'ledger.commit'> =>
  parseRequest('ledger.commit', request);

function handleOn(client: pg.Client): DatabaseHandle {
  const query: RawQuery = async <T>(
    text: string,
    params: readonly unknown[] = [],
    name?: string,
  ) => {
    const r = await client.query({ text, values: params as unknown[], ...(name && { name }) });
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  return {
    kind: 'postgres',
    query,
    async transaction(fn) {
      await client.query('BEGIN');
      const out = await fn(query);
      await client.query('COMMIT');
      return out;
    },
  } as DatabaseHandle;
}

describe('a ledger killed while its commit waits on the head row lock (PostgreSQL)', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('ledger_orphan');
    database = await openPostgres(tdb.url);
    await database.migrate({
      folder: LEDGER_MIGRATIONS_FOLDER,
      table: LEDGER_MIGRATIONS_TABLE,
      lockKey: LEDGER_LOCK_KEY,
    });
    await bootstrapGenesis(database);
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  const entries = async () =>
    (await database.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger.log_entries'))
      .rows[0]!.n;

  async function killedWhileWaiting(
    attempt: (deps: CommitDeps) => Promise<unknown>,
  ): Promise<void> {
    const locker = new pg.Client({ connectionString: tdb.url });
    // The victim connects as World's services do (openPostgres): with the client check.
    const victim = new pg.Client({
      connectionString: tdb.url,
      application_name: 'victim',
      options: POSTGRES_SESSION_OPTIONS,
    });
    await locker.connect();
    await victim.connect();
    victim.on('error', () => undefined);
    try {
      const repository = new CommitRepository(handleOn(victim));
      await repository.refreshHead(); // a warm replica
      const deps = { repository, events: { emit: () => undefined } } as unknown as CommitDeps;
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM ledger.heads WHERE key = 'selected' FOR UPDATE`);
      const pending = attempt(deps).catch(() => undefined);
      await eventually(
        async () => {
          const { rows } = await database.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM pg_stat_activity
              WHERE application_name = 'victim' AND wait_event_type = 'Lock'`,
          );
          return rows[0]!.n === '1' ? true : undefined;
        },
        5_000,
        'the victim waiting on the head row lock',
      );
      (
        victim as unknown as { connection: { stream: { destroy(): void } } }
      ).connection.stream.destroy();
      await pending;
      // The backend notices its client is gone within CLIENT_CHECK_INTERVAL_MS and cancels the
      // waiting statement: it leaves pg_stat_activity while the lock is still held.
      await eventually(
        async () => {
          const { rows } = await database.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = 'victim'`,
          );
          return rows[0]!.n === '0' ? true : undefined;
        },
        5_000,
        'the victim backend gone',
      );
      await locker.query('COMMIT'); // e.g. a replay: the head did not move
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await locker.end();
    }
  }

  it('the commit transaction leaves nothing', async () => {
    const before = await entries();
    const call = toolCall('a2a:ep-orphan:tx', { n: 1 });
    await killedWhileWaiting((deps) => commitPrepared(deps, prepareCommit(parsed(call.request))));
    expect(await entries()).toBe(before);
  });

  it('the one-statement commit leaves nothing', async () => {
    const before = await entries();
    const call = toolCall('a2a:ep-orphan:fast', { n: 2 });
    await killedWhileWaiting((deps) => commitAlone(deps, prepareCommit(parsed(call.request))));
    expect(await entries()).toBe(before);
  });
});
