import pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { PGlite } from '@electric-sql/pglite';
import { logger } from './logger.js';

/**
 * A drizzle database over either driver. Repositories take this type, so the same code runs on
 * PostgreSQL (distributed mode) and PGlite (embedded mode).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Database = PgDatabase<PgQueryResultHKT, any>;

/** Advisory lock key every service's migrations take (ASCII "wrld"). */
export const WORLD_MIGRATION_LOCK_KEY = 0x77726c64;

/** The rows of one raw statement. */
export interface RawResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * A raw statement runner: `text` with `$1…$n` placeholders. With a `name`, PostgreSQL prepares it
 * once per connection and later runs skip parsing and planning (the hot paths' statements).
 */
export type RawQuery = <T = Record<string, unknown>>(
  text: string,
  params?: readonly unknown[],
  name?: string,
) => Promise<RawResult<T>>;

/** One service's handle on its database. */
export interface DatabaseHandle {
  kind: 'postgres' | 'pglite';
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
  /** A listener for Postgres NOTIFY on a channel (PGlite supports LISTEN too). */
  listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Where a service's migrations live and how they are journaled. */
export interface MigrationOptions {
  /** the folder drizzle-kit generated (apps/<service>/drizzle) */
  folder: string;
  /** the journal table in schema `drizzle`, one per service (`__drizzle_migrations_<service>`) */
  table: string;
  /**
   * the service's advisory lock key; migrations also take WORLD_MIGRATION_LOCK_KEY, shared by every
   * service, because each service's first migration creates the shared `drizzle` schema and two
   * concurrent `CREATE SCHEMA IF NOT EXISTS` collide (ecosystem §3.2)
   */
  lockKey: number;
}

/** Pool sizes and statement timeouts of a PostgreSQL handle. */
export interface PostgresOptions {
  max?: number;
  applicationName?: string;
}

/**
 * Opens a pooled connection to PostgreSQL.
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
  });
  pool.on('error', (err) => logger.warn({ err }, 'idle postgres client failed'));
  const db = drizzlePg(pool) as unknown as Database;
  const listeners: pg.PoolClient[] = [];
  return {
    kind: 'postgres',
    db,
    async migrate(m) {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [WORLD_MIGRATION_LOCK_KEY]);
        await client.query('SELECT pg_advisory_lock($1)', [m.lockKey]);
        try {
          await migratePg(drizzlePg(client), {
            migrationsFolder: m.folder,
            migrationsTable: m.table,
          });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [m.lockKey]);
          await client.query('SELECT pg_advisory_unlock($1)', [WORLD_MIGRATION_LOCK_KEY]);
        }
      } finally {
        client.release();
      }
    },
    query: rawPg(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(rawPg(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async listen(channel, listener) {
      const client = await pool.connect();
      listeners.push(client);
      client.on('notification', (n) => {
        if (n.channel === channel) listener(n.payload ?? '');
      });
      await client.query(`LISTEN "${channel.replace(/"/g, '')}"`);
      return async () => {
        await client.query(`UNLISTEN "${channel.replace(/"/g, '')}"`).catch(() => undefined);
        client.release();
        listeners.splice(listeners.indexOf(client), 1);
      };
    },
    async close() {
      for (const client of listeners.splice(0)) client.release();
      await pool.end();
    },
  };
}

/**
 * Opens embedded Postgres (PGlite). Without a data directory it lives in memory. PGlite never
 * calls fsync: its data survives a killed process, not an OS crash (ecosystem §8).
 * @param dataDir a directory for the data files, or undefined for memory
 */
export async function openPglite(dataDir?: string): Promise<DatabaseHandle> {
  const client = dataDir === undefined ? new PGlite() : new PGlite(dataDir);
  await client.waitReady;
  const db = drizzlePglite(client) as unknown as Database;
  let closed = false;
  return {
    kind: 'pglite',
    db,
    async migrate(m) {
      // One backend: no concurrent migrator can exist, the advisory lock is not needed.
      await migratePglite(drizzlePglite(client), {
        migrationsFolder: m.folder,
        migrationsTable: m.table,
      });
    },
    query: rawPglite(client),
    transaction(fn) {
      return client.transaction((tx) => fn(rawPglite(tx)));
    },
    async ping() {
      await client.query('SELECT 1');
    },
    async listen(channel, listener) {
      const off = await client.listen(channel, listener);
      return async () => off();
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
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

/** Raw statements over PGlite or one of its transactions (one backend: nothing to prepare). */
function rawPglite(runner: Pick<PGlite, 'query'>): RawQuery {
  return async <T>(text: string, params: readonly unknown[] = []) => {
    const result = await runner.query<T>(text, params as unknown[]);
    return {
      rows: result.rows,
      rowCount: result.rows.length > 0 ? result.rows.length : (result.affectedRows ?? 0),
    };
  };
}

/**
 * Shares one handle between services of one process (embedded mode): closing is left to the
 * owner of the underlying handle.
 */
export function sharedHandle(handle: DatabaseHandle): DatabaseHandle {
  return { ...handle, close: async () => undefined };
}
