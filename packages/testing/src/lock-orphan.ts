import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { eventually } from './env.js';

/** A raw statement over one connection, shaped like @world/runtime's RawQuery. */
type ClientQuery = <T = Record<string, unknown>>(
  text: string,
  params?: readonly unknown[],
  name?: string,
) => Promise<{ rows: T[]; rowCount: number }>;

/**
 * Statements and transactions over ONE pg.Client, shaped like @world/runtime's DatabaseHandle
 * (`kind`, `query`, `transaction`), so a repository can run on a connection a test can cut.
 */
interface ClientRunner {
  kind: 'postgres';
  query: ClientQuery;
  transaction<T>(fn: (query: ClientQuery) => Promise<T>): Promise<T>;
}

/** A ClientRunner over `client` (named statements are prepared on it, as the pool does). */
function runnerOn(client: pg.Client): ClientRunner {
  const query: ClientQuery = async <T>(
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
  };
}

/** What killWhileWaitingOnLock needs. */
export interface LockOrphanRun {
  /** the test database's URL */
  url: string;
  /** libpq `options` of the dying connection: those of the service under test */
  sessionOptions: string;
  /** the statement that locks the row the attempt will wait on (run inside a transaction) */
  lock: { text: string; params: readonly unknown[] };
  /** the write under test, on the connection that will die */
  attempt: (runner: ClientRunner) => Promise<unknown>;
}

/** How long the helper waits for each state it needs (ms). */
const STATE_WAIT_MS = 5_000;

/**
 * Crash tests of one-statement writes (DESIGN.md §6): runs `attempt` on a connection whose socket
 * is destroyed — no Terminate message, as when its process is SIGKILLed — while its statement
 * waits on a row lock another transaction holds; waits until PostgreSQL has ended that backend,
 * then commits the lock holder (without changing the row). The caller then checks what the
 * attempt left. The dying connection has a unique application_name, so parallel suites on one
 * server never see each other's.
 * @throws Error naming the state that did not come within 5 s
 */
export async function killWhileWaitingOnLock(run: LockOrphanRun): Promise<void> {
  const name = `orphan-${randomBytes(6).toString('hex')}`;
  const locker = new pg.Client({ connectionString: run.url });
  const watcher = new pg.Client({ connectionString: run.url });
  const victim = new pg.Client({
    connectionString: run.url,
    application_name: name,
    options: run.sessionOptions,
  });
  victim.on('error', () => undefined);
  await Promise.all([locker.connect(), watcher.connect(), victim.connect()]);
  const backends = async (where: string) =>
    (
      await watcher.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = $1 ${where}`,
        [name],
      )
    ).rows[0]!.n;
  try {
    await locker.query('BEGIN');
    await locker.query(run.lock.text, run.lock.params as unknown[]);
    const pending = run.attempt(runnerOn(victim)).catch(() => undefined);
    await eventually(
      async () => ((await backends("AND wait_event_type = 'Lock'")) === '1' ? true : undefined),
      STATE_WAIT_MS,
      'the attempt waiting on the row lock',
    );
    (
      victim as unknown as { connection: { stream: { destroy(): void } } }
    ).connection.stream.destroy();
    await pending;
    await eventually(
      async () => ((await backends('')) === '0' ? true : undefined),
      STATE_WAIT_MS,
      'the dead connection’s backend gone',
    );
    await locker.query('COMMIT');
  } finally {
    await locker.end();
    await watcher.end();
  }
}
