/**
 * Review finding (0eb350c): commitFast fires the `inside-commit` crash point BEFORE it knows
 * whether the commit writes anything. In the commit transaction (commitPrepared) the point sits
 * after the journal check, so a resend of a committed invocation (replayed:true) or an id bound
 * to other content (DuplicateInvocationError) never reached it; the group path also fires it only
 * `if (writes.length > 0)`. With the fast path, a process started with
 * WORLD_CRASHPOINT=inside-commit now dies on a replay/duplicate that writes nothing.
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
import {
  commitAlone,
  commitPrepared,
  prepareCommit,
  type CommitDeps,
} from '../../src/commit/commit-invocation.js';
import { CommitRepository } from '../../src/commit/commit.repository.js';
import { toolCall } from '../support.js';

class Crashed extends Error {}

const parsed = (request: RequestOf<'ledger.commit'>): ParsedRequestOf<'ledger.commit'> =>
  parseRequest('ledger.commit', request);

describe('inside-commit crash point on a commit that writes nothing (resend)', () => {
  let database: DatabaseHandle;
  let testDb: TestDatabase;
  let deps: CommitDeps;
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
    deps = { repository, events: { emit: () => undefined } } as unknown as CommitDeps;
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
    const first = await commitAlone(deps, prepareCommit(parsed(call.request)));
    const resend = await armed(() => commitPrepared(deps, prepareCommit(parsed(call.request))));
    expect(resend).toEqual({ ...first, replayed: true });
  });

  it('commitAlone (the fast path) answers a resend replayed:true without reaching the crash point', async () => {
    const call = toolCall('a2a:ep-crashpoint:t2', { n: 2 });
    const first = await commitAlone(deps, prepareCommit(parsed(call.request)));
    const resend = await armed(() => commitAlone(deps, prepareCommit(parsed(call.request))));
    expect(resend).toEqual({ ...first, replayed: true });
  });
});
