/**
 * tx2 (EffectsRepository.finish: result object, record object, record row, outcome) is ONE
 * autocommit statement, sent with its Sync. A broker that dies while that statement waits on a
 * lock must leave nothing of tx2 durable, so the intent stays indeterminate (world-internals §5.5
 * crash table: "intent but no outcome → indeterminate"); PostgreSQL would otherwise run and commit
 * the orphaned statement once the lock frees. Every World connection sets
 * `client_connection_check_interval` (runtime POSTGRES_SESSION_OPTIONS), so the backend cancels it.
 */
import { POSTGRES_SESSION_OPTIONS, openPostgres, type DatabaseHandle } from '@world/runtime';
import { createTestDatabase, killWhileWaitingOnLock, type TestDatabase } from '@world/testing';
import {
  BROKER_MIGRATIONS_FOLDER,
  BROKER_MIGRATIONS_TABLE,
  BROKER_MIGRATION_LOCK_KEY,
} from '../../src/boot.js';
import { effectRecord, effectRecordObject } from '../../src/effects/effect-objects.js';
import type { RecordRow } from '../../src/effects/effect-start.js';
import { EffectsRepository } from '../../src/effects/effects.repository.js';
import { allowedRead } from '../support/harness.js';

const EPISODE = 'ep-tx2';
const INVOCATION = `mcp:${EPISODE}:t1`;

describe('a broker killed while tx2 waits on a lock (PostgreSQL)', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('broker_tx2_orphan');
    database = await openPostgres(tdb.url);
    await database.migrate({
      folder: BROKER_MIGRATIONS_FOLDER,
      table: BROKER_MIGRATIONS_TABLE,
      lockKey: BROKER_MIGRATION_LOCK_KEY,
    });
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  const count = async (table: string) =>
    (await database.query<{ n: string }>(`SELECT count(*)::text AS n FROM broker.${table}`))
      .rows[0]!.n;

  it('leaves the intent indeterminate: no outcome, no record, no record object', async () => {
    await database.query('INSERT INTO broker.episodes (id) VALUES ($1)', [EPISODE]);
    const start = allowedRead(INVOCATION, 1_000);
    const begun = await new EffectsRepository(database).beginFree(
      EPISODE,
      { holder: 'c1', ttlMs: 60_000, now: Date.now(), freeFence: 0 },
      start,
    );
    expect(begun?.ordinal).toBe(0);
    const record = effectRecord(
      { effect: 'Workspace.Read', scope: 'worktree', cost: 1 },
      start.objects[0]!.hash,
      { arm: 'failed', budgetBefore: 5 },
    );
    const recordObject = effectRecordObject(record);
    const row: RecordRow = {
      ref: recordObject.hash,
      episodeId: EPISODE,
      invocationId: INVOCATION,
      record,
    };
    let reachedOutcome = 0;
    await killWhileWaitingOnLock({
      url: tdb.url,
      sessionOptions: POSTGRES_SESSION_OPTIONS,
      // SHARE conflicts with the ROW EXCLUSIVE lock tx2's INSERTs take: tx2 waits on it.
      lock: { text: 'LOCK TABLE broker.effect_outcomes IN SHARE MODE', params: [] },
      attempt: (runner) =>
        new EffectsRepository(runner as unknown as DatabaseHandle).finish(
          0,
          [recordObject],
          row,
          'failed',
          () => {
            reachedOutcome += 1;
          },
        ),
    });
    expect(reachedOutcome).toBe(1);
    expect({
      outcomes: await count('effect_outcomes'),
      records: await count('effect_records'),
      objects: await count('objects'),
      intents: await count('effect_intents'),
    }).toEqual({ outcomes: '0', records: '0', objects: '1', intents: '1' });
    const { rows } = await database.query<{ ref: string }>(
      'SELECT ref FROM broker.objects WHERE ref = $1',
      [recordObject.hash],
    );
    expect(rows).toEqual([]);
  });
});
