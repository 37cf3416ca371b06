/**
 * The `inside-commit` crash point fires only for a commit that writes. In the commit transaction
 * (OWN_TRANSACTION) the point sits after the journal check, so a resend of a committed
 * invocation (replayed:true) or an id bound to other content (DuplicateInvocationError) never
 * reaches it; the shared transaction fires it only when it wrote. A one-statement commit cannot
 * be stopped in the middle, so while the point is armed a lone commit takes the transaction
 * (chooseStrategy) — a process started with WORLD_CRASHPOINT=inside-commit must not die on a
 * replay that writes nothing.
 *
 * process.kill is stubbed to throw instead of killing jest.
 */
import { parseRequest, type ParsedRequestOf, type RequestOf } from '@world/contracts';
import { openPostgres, type DatabaseHandle } from '@world/runtime';
import { createTestDatabase, type TestDatabase } from '@world/testing';
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

class Crashed extends Error {}

const parsed = (request: RequestOf<'ledger.commit'>): ParsedRequestOf<'ledger.commit'> =>
  parseRequest('ledger.commit', request);

/** The use case of `ledger.commit` on `repository`, announcing nowhere. */
const useCase = (repository: CommitRepository) =>
  new CommitInvocation(repository, new CommittedEvents({ emit: () => undefined }));

describe('inside-commit crash point on a commit that writes nothing (resend)', () => {
  let database: DatabaseHandle;
  let testDb: TestDatabase;
  let invocation: CommitInvocation;
  const realKill = process.kill.bind(process);

  beforeAll(async () => {
    testDb = await createTestDatabase('ledger_crashpoint');
    database = await openPostgres(testDb.url);
    await database.migrate({
      folder: LEDGER_MIGRATIONS_FOLDER,
      table: LEDGER_MIGRATIONS_TABLE,
      lockKey: LEDGER_LOCK_KEY,
    });
    await bootstrapGenesis(database);
    const repository = new CommitRepository(database);
    await repository.refreshHead();
    invocation = useCase(repository);
  });

  afterAll(async () => {
    process.kill = realKill;
    delete process.env.WORLD_CRASHPOINT;
    await database?.close();
    await testDb?.drop();
  });

  const armed = async <T>(work: () => Promise<T>): Promise<T | Crashed> => {
    process.env.WORLD_CRASHPOINT = 'inside-commit';
    process.kill = ((pid: number, signal?: string | number) => {
      if (pid === process.pid && signal === 'SIGKILL') throw new Crashed('crash point fired');
      return realKill(pid, signal);
    }) as typeof process.kill;
    try {
      return await work();
    } catch (err) {
      if (err instanceof Crashed) return err;
      throw err;
    } finally {
      delete process.env.WORLD_CRASHPOINT;
      process.kill = realKill;
    }
  };

  it('the commit transaction answers a resend replayed:true without reaching the crash point', async () => {
    const call = toolCall('a2a:ep-crashpoint:t1', { n: 1 });
    const first = await commitLone(invocation, prepareCommit(parsed(call.request)));
    const resend = await armed(() =>
      commitLone(invocation, prepareCommit(parsed(call.request)), OWN_TRANSACTION),
    );
    expect(resend).toEqual({ ...first, replayed: true });
  });

  it('a lone commit (the chooser) answers a resend replayed:true without reaching the crash point', async () => {
    const call = toolCall('a2a:ep-crashpoint:t2', { n: 2 });
    const first = await commitLone(invocation, prepareCommit(parsed(call.request)));
    const resend = await armed(() => commitLone(invocation, prepareCommit(parsed(call.request))));
    expect(resend).toEqual({ ...first, replayed: true });
  });
});
