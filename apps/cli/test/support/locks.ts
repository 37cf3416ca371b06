/**
 * A PostgreSQL lock held in a transaction of its own, and the backends waiting on it: how the
 * e2e suites stop a service's statement at a chosen point (a commit at `ledger.log_entries`, a
 * claim at `ledger.commit_journal`, an intent at `broker.effect_intents`) while every process
 * stays real, and see that it waits there.
 */
import pg from 'pg';
import { eventually } from '@world/testing';

/** Rows of a query on the test database (`UpWorld.q`, or a suite's own client). */
type Query = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/**
 * Opens a connection of its own to `databaseUrl`, runs `BEGIN` and `lockSql` (e.g. `LOCK TABLE
 * ledger.log_entries IN EXCLUSIVE MODE`) and holds what it took until the answered release runs:
 * `ROLLBACK`, then the connection ends. The release is idempotent (a later call does nothing), so
 * a test's own release and its suite's clean-up may both run it.
 * @throws what pg throws when the connection, `BEGIN` or `lockSql` fails (the connection is
 *   ended first), or when the release's `ROLLBACK` fails (the connection is ended all the same)
 */
export async function holdLock(databaseUrl: string, lockSql: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(lockSql);
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    try {
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  };
}

/**
 * How many backends of the current database wait on a heavyweight lock (`pg_stat_activity`
 * rows with `wait_event_type = 'Lock'`; PostgreSQL manual §28.2.3): a statement a held lock
 * stopped counts, the holder itself does not.
 */
export async function lockWaiters(q: Query): Promise<number> {
  const rows = await q<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return Number(rows[0]!.n);
}

/**
 * Resolves once some backend of the current database waits on a lock (`lockWaiters` > 0).
 * @param what names the awaited state in the timeout's error
 * @throws the `eventually` timeout error after `timeoutMs` (milliseconds) without a waiter
 */
export async function waitForLockWaiter(
  q: Query,
  what = 'a lock waiter',
  timeoutMs = 10_000,
): Promise<void> {
  await eventually(async () => ((await lockWaiters(q)) > 0 ? true : undefined), timeoutMs, what);
}

/**
 * Resolves once no backend of the current database waits on a lock: every statement a released
 * (or a dead client's) lock stopped has run or been cancelled.
 * @throws the `eventually` timeout error after `timeoutMs` (milliseconds) with a waiter left
 */
export async function waitForNoLockWaiter(
  q: Query,
  what = 'no waiter',
  timeoutMs = 10_000,
): Promise<void> {
  await eventually(async () => ((await lockWaiters(q)) === 0 ? true : undefined), timeoutMs, what);
}
