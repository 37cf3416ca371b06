/**
 * The uncommitted-outcome sweep's keyset pages (EffectsRepository.outcomesAfter, in
 * (logical_time, episode_id, ordinal) order) read the index of that order
 * (drizzle/0002_outcome_order.sql) instead of sorting every intent of every episode: over 20,000
 * intents with outcomes, the page statement's plan scans `effect_intents_by_logical_time` and has
 * no Sort node, and its page is the next `limit` intents after the cursor.
 */
import { openPostgres, type DatabaseHandle } from '@world/runtime';
import { createTestDatabase, type TestDatabase } from '@world/testing';
import {
  BROKER_MIGRATIONS_FOLDER,
  BROKER_MIGRATIONS_TABLE,
  BROKER_MIGRATION_LOCK_KEY,
} from '../../src/boot.js';
import { EffectsRepository, outcomesAfterQuery } from '../../src/effects/effects.repository.js';

const EPISODES = 200;
const PER_EPISODE = 100;
/** Logical time of intent `ordinal` of episode `e`: the episodes' intents interleave. */
const T0 = 1_800_000_000_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe('the uncommitted-outcome pages read the (logical_time, episode_id, ordinal) index', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('broker_outcome_order');
    database = await openPostgres(tdb.url);
    await database.migrate({
      folder: BROKER_MIGRATIONS_FOLDER,
      table: BROKER_MIGRATIONS_TABLE,
      lockKey: BROKER_MIGRATION_LOCK_KEY,
    });
    await database.query(
      `INSERT INTO broker.episodes (id)
         SELECT 'ep-' || lpad(e::text, 3, '0') FROM generate_series(0, ${EPISODES - 1}) e`,
    );
    await database.query(
      `INSERT INTO broker.effect_intents
         (episode_id, ordinal, invocation_id, effect, scope, cost, request_ref, logical_time)
       SELECT 'ep-' || lpad(e::text, 3, '0'), o, 'mcp:ep-' || e || ':t' || o, 'Workspace.Read',
              'worktree', 1, 'sha256:' || repeat('0', 64), ${T0} + o * 1000 + e
         FROM generate_series(0, ${EPISODES - 1}) e, generate_series(0, ${PER_EPISODE - 1}) o`,
    );
    await database.query(
      `INSERT INTO broker.effect_outcomes (episode_id, ordinal, status, record_ref)
       SELECT episode_id, ordinal, 'succeeded', 'sha256:' || repeat('1', 64)
         FROM broker.effect_intents`,
    );
    await database.query('ANALYZE broker.effect_intents');
    await database.query('ANALYZE broker.effect_outcomes');
  });
  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  const cursor = { logicalTime: T0 + 50 * 1000 + 7, episodeId: 'ep-007', ordinal: 50 };

  it('has the index, as migration 0002 creates it', async () => {
    const { rows } = await database.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes
        WHERE schemaname = 'broker' AND indexname = 'effect_intents_by_logical_time'`,
    );
    expect(rows).toEqual([
      {
        indexdef:
          'CREATE INDEX effect_intents_by_logical_time ON broker.effect_intents USING btree (logical_time, episode_id, ordinal)',
      },
    ]);
  });

  it('plans a page as a scan of that index, with no sort', async () => {
    const page = outcomesAfterQuery(database, cursor, T0 + 10 * PER_EPISODE * 1000, 1000).toSQL();
    const { rows } = await database.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${page.sql}`,
      page.params,
    );
    const nodes = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
    expect(nodes.filter((n) => n['Index Name'] === 'effect_intents_by_logical_time')).toEqual([
      expect.objectContaining({ 'Node Type': 'Index Scan' }),
    ]);
    expect(nodes.filter((n) => n['Node Type'].includes('Sort'))).toEqual([]);
  });

  it('answers the next intents after the cursor, in keyset order', async () => {
    const effects = new EffectsRepository(database);
    const page = await effects.outcomesAfter(cursor, T0 + 10 * PER_EPISODE * 1000, 3);
    expect(page.map((r) => [r.logicalTime, r.episodeId, r.ordinal, r.status])).toEqual([
      [T0 + 50 * 1000 + 8, 'ep-008', 50, 'succeeded'],
      [T0 + 50 * 1000 + 9, 'ep-009', 50, 'succeeded'],
      [T0 + 50 * 1000 + 10, 'ep-010', 50, 'succeeded'],
    ]);
  });
});
