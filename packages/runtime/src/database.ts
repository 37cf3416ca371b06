import pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { logger } from './logger.js';
import { listenResilient } from './pg-listen.js';
import { migrateUnderLock, type MigrationOptions } from './pg-migrate.js';

/**
 * A drizzle database over node-postgres. Both run modes use it: distributed World on the
 * configured PostgreSQL, embedded World on the server `world start` runs (apps/cli
 * system/postgres).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Database = PgDatabase<PgQueryResultHKT, any>;

/** The rows of one raw statement. */
export interface RawResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * A raw statement runner: `text` with `$1…$n` placeholders. With a `name`, the statement is
 * prepared once per connection and later runs skip parsing and planning (the hot paths'
 * statements). A name stands for one text (node-postgres refuses one name with two texts).
 */
export type RawQuery = <T = Record<string, unknown>>(
  text: string,
  params?: readonly unknown[],
  name?: string,
) => Promise<RawResult<T>>;

/** One service's handle on its database. */
export interface DatabaseHandle {
  db: Database;
  /**
   * Runs one raw statement outside any transaction (one round trip, its own implicit transaction).
   * For hot paths where drizzle's query building costs more than the statement (bench/README.md).
   */
  query: RawQuery;
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (query: RawQuery) => Promise<T>): Promise<T>;
  /** Applies a service's committed drizzle-kit migrations under a Postgres advisory lock. */
  migrate(options: MigrationOptions): Promise<void>;
  /** Readiness: one round trip to the database. */
  ping(): Promise<void>;
  /**
   * A listener for Postgres NOTIFY on a channel, on a connection of its own that listens again
   * after it failed (pg-listen.ts); `onRestored` is called each time it listens again.
   */
  listen(
    channel: string,
    listener: (payload: string) => void,
    onRestored?: () => void,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Pool sizes and statement timeouts of a PostgreSQL handle. */
export interface PostgresOptions {
  max?: number;
  applicationName?: string;
}

/**
 * How often (ms) a PostgreSQL backend checks, while running a statement, that its client is
 * still connected, and cancels the statement when it is not (`client_connection_check_interval`,
 * PostgreSQL ≥ 14). World's one-statement writes (the broker's tx1 fast path, the ledger's lone
 * commit) are sent with their Sync and commit when they finish; without the check, a statement
 * of a killed process that waits on a row lock would still run and commit once the lock frees.
 * With it, such a statement is cancelled within this interval of the death, the same window a
 * crash right after sending COMMIT leaves.
 * @internal exported for test/integration/database.int-spec.ts, apps/broker/test/integration/tx1-orphan.int-spec.ts
 */
export const CLIENT_CHECK_INTERVAL_MS = 50;

/**
 * How long a transaction of World's may sit open with no statement running before PostgreSQL
 * ends its session (`idle_in_transaction_session_timeout`). A process paused or starved between
 * its statements (SIGSTOP, a stalled machine) would otherwise hold its row locks — the ledger's
 * head, a journal row — for as long as it is stopped, and its COMMIT could land after the call
 * was given up (world-internals §5.5: a given-up journal row never commits later). World's own
 * transactions send their statements back to back, so none is idle anywhere near this long.
 * @internal exported for test/integration/database.int-spec.ts
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 5_000;

/**
 * The session settings every PostgreSQL connection of World starts with (libpq `options`).
 * @internal exported for apps/broker/test/integration/tx1-orphan.int-spec.ts, tx2-orphan.int-spec.ts, apps/ledger/test/integration/fast-commit-orphan.int-spec.ts
 */
export const POSTGRES_SESSION_OPTIONS = `-c client_connection_check_interval=${CLIENT_CHECK_INTERVAL_MS} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS}`;

/**
 * Opens a pooled connection to PostgreSQL. Every connection runs with
 * `client_connection_check_interval` = CLIENT_CHECK_INTERVAL_MS and
 * `idle_in_transaction_session_timeout` = IDLE_IN_TRANSACTION_TIMEOUT_MS.
 * @param url a postgres:// connection string
 */
export async function openPostgres(
  url: string,
  options: PostgresOptions = {},
): Promise<DatabaseHandle> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'world',
    options: POSTGRES_SESSION_OPTIONS,
  });
  pool.on('error', (err) => logger.warn({ err }, 'idle postgres client failed'));
  const db = drizzlePg(pool) as unknown as Database;
  const listeners = new Set<() => Promise<void>>();
  return {
    db,
    migrate: (m) => migrateUnderLock(pool, m),
    query: rawPg(pool),
    async transaction(fn) {
      const client = await pool.connect();
      // A connection that fails between statements emits 'error' (no statement to reject): the
      // next statement fails instead, and the connection is destroyed below, not reused.
      let failed: Error | undefined;
      const onError = (err: Error) => (failed = err);
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await fn(rawPg(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.off('error', onError);
        client.release(failed);
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async listen(channel, listener, onRestored) {
      const stop = await listenResilient(pool, channel, listener, onRestored);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    },
    async close() {
      for (const stop of [...listeners]) await stop();
      listeners.clear();
      await pool.end();
    },
  };
}

/** Raw statements over a node-postgres pool or client (named statements are prepared per connection). */
function rawPg(runner: pg.Pool | pg.PoolClient): RawQuery {
  return async <T>(text: string, params: readonly unknown[] = [], name?: string) => {
    const result = await runner.query({ text, values: params as unknown[], name });
    return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
  };
}

/**
 * Shares one handle between services of one process (`world start`): closing is left to the
 * owner of the underlying handle.
 */
export function sharedHandle(handle: DatabaseHandle): DatabaseHandle {
  return { ...handle, close: async () => undefined };
}
