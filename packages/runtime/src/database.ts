import pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import {
  PGlite,
  messages,
  parse,
  protocol,
  types,
  type Results,
  type Transaction,
} from '@electric-sql/pglite';
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
 * A raw statement runner: `text` with `$1…$n` placeholders. With a `name`, the statement is
 * prepared once per connection (PostgreSQL) or per PGlite instance (embedded) and later runs skip
 * parsing and planning (the hot paths' statements). A name stands for one text: on PGlite, the same
 * name with a different text throws an Error.
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
 * How often (ms) a PostgreSQL backend checks, while running a statement, that its client is
 * still connected, and cancels the statement when it is not (`client_connection_check_interval`,
 * PostgreSQL ≥ 14). World's one-statement writes (the broker's tx1 fast path, the ledger's lone
 * commit) are sent with their Sync and commit when they finish; without the check, a statement
 * of a killed process that waits on a row lock would still run and commit once the lock frees.
 * With it, such a statement is cancelled within this interval of the death, the same window a
 * crash right after sending COMMIT leaves.
 */
export const CLIENT_CHECK_INTERVAL_MS = 50;

/** The session settings every PostgreSQL connection of World starts with (libpq `options`). */
export const POSTGRES_SESSION_OPTIONS = `-c client_connection_check_interval=${CLIENT_CHECK_INTERVAL_MS}`;

/**
 * Opens a pooled connection to PostgreSQL. Every connection runs with
 * `client_connection_check_interval` = CLIENT_CHECK_INTERVAL_MS.
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
  // One options object: PGlite reads an undefined first argument as the options themselves.
  const client = new PGlite({ dataDir, serializers: { [types.BYTEA]: serializeBytea } });
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
      return client.transaction((tx) => fn(rawPglite(client, tx)));
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

/**
 * PGlite's bytea parameter serializer (also used for each element of a bytea[]) with Node's hex
 * encoder: the same text, `\x` and lowercase hex, and the same Error for a value that is not a
 * Uint8Array, without PGlite's string per byte (a hot-path cost: statements pass object bodies as
 * bytea and bytea[]).
 */
function serializeBytea(x: unknown): string {
  if (!(x instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return '\\x' + Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('hex');
}

/** Raw statements over a node-postgres pool or client (named statements are prepared per connection). */
function rawPg(runner: pg.Pool | pg.PoolClient): RawQuery {
  return async <T>(text: string, params: readonly unknown[] = [], name?: string) => {
    const result = await runner.query({ text, values: params as unknown[], name });
    return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
  };
}

/**
 * Raw statements over PGlite, or over one of its transactions when `tx` is given. Unnamed
 * statements go through `query`; named ones through {@link runPrepared}.
 */
function rawPglite(client: PGlite, tx?: Transaction): RawQuery {
  return async <T>(text: string, params: readonly unknown[] = [], name?: string) => {
    const result =
      name === undefined
        ? await (tx ?? client).query<T>(text, params as unknown[])
        : await runPrepared<T>(client, tx, name, text, params);
    return {
      rows: result.rows,
      rowCount: result.rows.length > 0 ? result.rows.length : (result.affectedRows ?? 0),
    };
  };
}

/** What the server said about a named statement when PGlite prepared it. */
interface PreparedStatement {
  text: string;
  /** parameter type OIDs (ParameterDescription), which pick each value's serializer */
  paramTypes: number[];
  /** the RowDescription (undefined: the statement returns no rows, NoData) */
  rowDescription: messages.RowDescriptionMessage | undefined;
}

/**
 * Named statements prepared on each PGlite instance (prepared statements live in the backend's
 * session, one per instance, and survive transaction rollbacks).
 */
const preparedByClient = new WeakMap<PGlite, Map<string, PreparedStatement>>();

const { serialize } = protocol;

/**
 * Runs a named statement on PGlite as a server-side prepared statement. `PGlite.query` sends six
 * protocol messages, each its own call into WASM, and the server parses and plans the text every
 * time; here the first use of a name sends Parse + Describe + Sync once, and every run after that
 * is one call with Bind + Execute + Sync.
 *
 * Same contract as `PGlite.query`: values are serialized by `client.serializers` for the
 * parameter's type OID, rows are parsed by `parse.parseResults` with `client.parsers`, and a
 * server error is thrown as PGlite's `DatabaseError` (`code`, `message`, …, plus `query` and
 * `params`). The Sync in the same message ends the extended-protocol error state, so the instance
 * stays usable; inside a transaction the failure aborts the transaction, as before.
 *
 * Locking as `PGlite.query` (outside a transaction) and `tx.query` (inside one) do it.
 * @throws Error when `name` was prepared with another `text`, or `tx` is closed
 */
async function runPrepared<T>(
  client: PGlite,
  tx: Transaction | undefined,
  name: string,
  text: string,
  params: readonly unknown[],
): Promise<Results<T>> {
  let statements = preparedByClient.get(client);
  if (statements === undefined) preparedByClient.set(client, (statements = new Map()));
  const run = async (syncToFs: boolean): Promise<Results<T>> => {
    let statement = statements.get(name);
    if (statement !== undefined && statement.text !== text) {
      throw new Error(
        `statement name "${name}" is already prepared with another text; a name stands for one text`,
      );
    }
    if (statement === undefined) {
      const described = await exchange(
        client,
        [
          serialize.parse({ name, text }),
          serialize.describe({ type: 'S', name }),
          serialize.sync(),
        ],
        false,
        text,
        params,
      );
      statement = {
        text,
        paramTypes: parse.parseDescribeStatementResults(described),
        rowDescription: described.find(
          (m): m is messages.RowDescriptionMessage => m.name === 'rowDescription',
        ),
      };
      statements.set(name, statement);
    }
    const types = statement.paramTypes;
    // As PGlite's runQuery does: null stays NULL, else the type's serializer, else toString().
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const serializer = client.serializers[types[i]!];
      return serializer ? serializer(param) : (param as object).toString();
    });
    const results = await exchange(
      client,
      [serialize.bind({ statement: name, values }), serialize.execute({}), serialize.sync()],
      syncToFs,
      text,
      params,
    );
    // parseResults names and parses the columns by the RowDescription before the DataRows, which
    // PGlite.query gets from its Describe of the portal; here it is the one saved at prepare time.
    const described = statement.rowDescription ? [statement.rowDescription, ...results] : results;
    return parse.parseResults(described, client.parsers)[0] as Results<T>;
  };
  if (tx !== undefined) {
    if (tx.closed) throw new Error('Transaction is closed');
    // Inside `client.transaction`, which holds the transaction mutex: only the query mutex, as
    // `tx.query` takes it; no filesystem sync (PGlite syncs after the transaction, not in it).
    return client.runExclusive(() => run(false));
  }
  // The check `client.query` makes first ('PGlite is closing' / 'PGlite is closed'); PGlite has
  // no public form of it.
  await client._checkReady();
  // Both mutexes, as `client.query` takes them, so the statement never runs inside another flow's
  // open transaction. `_runExclusiveTransaction` is PGlite's only way to take the transaction
  // mutex without BEGIN (`runExclusive` takes only the query mutex).
  // Checked again inside them, as PGlite's close() does: a close() that began while this
  // statement waited for the mutexes would otherwise let it reach a backend shutting down.
  return client._runExclusiveTransaction(() =>
    client.runExclusive(async () => {
      await client._checkReady();
      return run(true);
    }),
  );
}

/**
 * Sends protocol messages to PGlite in one call and returns the backend's messages.
 * `execProtocolStream` is `execProtocol` without the copy of the raw reply, and what PGlite's own
 * `query` uses. A server error becomes the same error `PGlite.query` throws.
 */
async function exchange(
  client: PGlite,
  parts: Uint8Array[],
  syncToFs: boolean,
  text: string,
  params: readonly unknown[],
): Promise<messages.BackendMessage[]> {
  const message = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  try {
    const answered = await client.execProtocolStream(message, { syncToFs });
    // Every exchange ends with Sync, so a live backend always answers ReadyForQuery; nothing
    // means the instance went away under the statement: never read that as "no rows".
    if (!answered.some((m) => m.name === 'readyForQuery')) {
      throw new Error('PGlite did not answer the statement (the instance is closing or closed)');
    }
    return answered;
  } catch (err) {
    if (err instanceof messages.DatabaseError) {
      // What PGlite's makePGliteError (not exported) adds to the server's error.
      Object.assign(err, { query: text, params, queryOptions: undefined });
    }
    throw err;
  }
}

/**
 * Shares one handle between services of one process (embedded mode): closing is left to the
 * owner of the underlying handle.
 */
export function sharedHandle(handle: DatabaseHandle): DatabaseHandle {
  return { ...handle, close: async () => undefined };
}
