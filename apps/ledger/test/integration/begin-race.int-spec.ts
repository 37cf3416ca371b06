/**
 * PostgreSQL only: a duplicate `ledger.invocation.begin` that waits on the
 * journal row's lock while the first attempt's commit holds it must answer the committed output's
 * exact bytes once that commit lands. Under READ COMMITTED a `SELECT … FOR UPDATE OF journal`
 * joined to objects re-reads only the locked row after the wait: the old read saw the journal
 * committed and its output object missing (an empty output: the planner's `Unexpected end of JSON
 * input`, an internal error to the client).
 */
import { encodeBase64 } from '@world/canonical';
import { openPostgres, type DatabaseHandle } from '@world/runtime';
import { createTestDatabase, eventually, type TestDatabase } from '@world/testing';
import pg from 'pg';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
} from '../../src/constants.js';
import { JournalRepository } from '../../src/journal/journal.repository.js';
import { toolCall } from '../support.js';

const HASH = 'a'.repeat(64);
const TTL_MS = 60_000;

describe('a duplicate begin waiting on the journal row while the first commit lands (PostgreSQL)', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('ledger_begin_race');
    database = await openPostgres(tdb.url);
    await database.migrate({
      folder: LEDGER_MIGRATIONS_FOLDER,
      table: LEDGER_MIGRATIONS_TABLE,
      lockKey: LEDGER_LOCK_KEY,
    });
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  it('answers the committed output bytes, read after the lock', async () => {
    const journal = new JournalRepository(database);
    const id = 'a2a:ep-race:t1';
    const call = toolCall(id, { race: 1 }, { answer: 'landed while the duplicate waited' });
    expect((await journal.begin(id, HASH, TTL_MS, false)).state).toBe('claimed');
    const commit = new pg.Client({ connectionString: tdb.url });
    await commit.connect();
    let duplicate: ReturnType<JournalRepository['begin']>;
    try {
      // The commit has locked the journal row (its upsert), not yet written its outcome: the
      // duplicate's claim insert passes (a row lock is not a conflict), its read waits.
      await commit.query('BEGIN');
      await commit.query(
        `SELECT 1 FROM ledger.commit_journal WHERE invocation_id = $1 FOR UPDATE`,
        [id],
      );
      duplicate = journal.begin(id, HASH, TTL_MS, false);
      await eventually(
        async () => {
          const { rows } = await database.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0]!.n === '1' ? true : undefined;
        },
        10_000,
        'the duplicate begin to wait on the journal row',
      );
      const o = call.output;
      await commit.query(
        `INSERT INTO ledger.objects (hash, interface_hash, semantic_id, provenance, payload)
         VALUES ($1, $2, $3, $4, $5)`,
        [o.hash, o.interfaceHash, o.semanticId, o.provenance, Buffer.from(o.payload)],
      );
      await commit.query(
        `UPDATE ledger.commit_journal
            SET state = 'committed', commit_hash = 'c', entry_index = 1, world_ref = $2,
                output_ref = $3
          WHERE invocation_id = $1`,
        [id, call.record.hash, o.hash],
      );
      await commit.query('COMMIT');
    } finally {
      await commit.end();
    }
    await expect(duplicate).resolves.toEqual({
      state: 'committed',
      entryIndex: 1,
      worldRef: call.record.hash,
      outputRef: call.output.hash,
      output: encodeBase64(call.output.payload),
    });
  });
});
