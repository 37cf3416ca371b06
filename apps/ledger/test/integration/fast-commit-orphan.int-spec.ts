/**
 * PostgreSQL only: the lone commit's one statement is autocommit, sent with its Sync. A ledger that dies while APPEND_ON_HEAD waits on the head row lock (held by
 * something that does not move the head: a replay, a refused REST commit, a rolled-back group)
 * must leave nothing, as the commit transaction does (no COMMIT sent). Every World connection
 * sets `client_connection_check_interval` (runtime POSTGRES_SESSION_OPTIONS), so the backend
 * cancels the orphaned statement before the lock frees.
 */
import { parseRequest, type ParsedRequestOf, type RequestOf } from '@world/contracts';
import { POSTGRES_SESSION_OPTIONS, openPostgres, type DatabaseHandle } from '@world/runtime';
import { createTestDatabase, killWhileWaitingOnLock, type TestDatabase } from '@world/testing';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
} from '../../src/constants.js';
import { bootstrapGenesis } from '../../src/genesis/bootstrap-genesis.js';
import { CommitInvocation } from '../../src/commit/commit-invocation.js';
import { OWN_TRANSACTION } from '../../src/commit/commit-strategies.js';
import { CommitRepository } from '../../src/commit/commit.repository.js';
import { CommittedEvents } from '../../src/commit/committed-events.js';
import { prepareCommit } from '../../src/commit/tool-commit.js';
import { commitLone, toolCall } from '../support.js';

const parsed = (request: RequestOf<'ledger.commit'>): ParsedRequestOf<'ledger.commit'> =>
  parseRequest('ledger.commit', request);

/** The use case of `ledger.commit` on `repository`, announcing nowhere. */
const useCase = (repository: CommitRepository) =>
  new CommitInvocation(repository, new CommittedEvents({ emit: () => undefined }));

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

  /** Runs `attempt` as a warm ledger replica that dies while it waits on the head row. */
  async function killedWhileWaiting(
    attempt: (invocation: CommitInvocation) => Promise<unknown>,
  ): Promise<void> {
    await killWhileWaitingOnLock({
      url: tdb.url,
      sessionOptions: POSTGRES_SESSION_OPTIONS,
      // e.g. a replay holding the head: the row is not changed
      lock: { text: `SELECT 1 FROM ledger.heads WHERE key = 'selected' FOR UPDATE`, params: [] },
      attempt: async (runner) => {
        const repository = new CommitRepository(runner as unknown as DatabaseHandle);
        await repository.refreshHead();
        return attempt(useCase(repository));
      },
    });
  }

  it('the commit transaction leaves nothing', async () => {
    const before = await entries();
    const call = toolCall('a2a:ep-orphan:tx', { n: 1 });
    await killedWhileWaiting((invocation) =>
      commitLone(invocation, prepareCommit(parsed(call.request)), OWN_TRANSACTION),
    );
    expect(await entries()).toBe(before);
  });

  it('the one-statement commit leaves nothing', async () => {
    const before = await entries();
    const call = toolCall('a2a:ep-orphan:fast', { n: 2 });
    await killedWhileWaiting((invocation) =>
      commitLone(invocation, prepareCommit(parsed(call.request))),
    );
    expect(await entries()).toBe(before);
  });
});
