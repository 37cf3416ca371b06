/**
 * Review finding (9443e07), PostgreSQL only: tx1's fast path (EffectsRepository.beginFree) is ONE
 * autocommit statement, sent with its Sync. A broker that dies while that statement waits on the
 * episode row lock must leave nothing durable — as the locking transaction does, whose COMMIT is
 * never sent. Without `client_connection_check_interval` PostgreSQL ran the orphaned statement
 * once the lock freed (lease taken by a dead caller, spend debited, an intent after the restarted
 * broker's recovery); every World connection now sets it (runtime POSTGRES_SESSION_OPTIONS), so
 * the backend cancels the statement within CLIENT_CHECK_INTERVAL_MS of the death.
 */
import { POSTGRES_SESSION_OPTIONS, openPostgres, type DatabaseHandle } from '@world/runtime';
import { createTestDatabase, killWhileWaitingOnLock, type TestDatabase } from '@world/testing';
import {
  BROKER_MIGRATIONS_FOLDER,
  BROKER_MIGRATIONS_TABLE,
  BROKER_MIGRATION_LOCK_KEY,
} from '../../src/boot.js';
import { EffectsRepository } from '../../src/effects/effects.repository.js';
import { allowedRead } from '../support/harness.js';

const startOf = (episodeId: string, n: number) => allowedRead(`mcp:${episodeId}:t${n}`, n);

describe('a broker killed while tx1 waits on the episode row lock (PostgreSQL)', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('broker_orphan');
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

  const state = async (episodeId: string) => {
    const { rows } = await database.query<{
      holder: string | null;
      intents: string;
      spent: string;
    }>(
      `SELECT e.lease_holder AS holder,
          (SELECT count(*) FROM broker.effect_intents i WHERE i.episode_id = e.id)::text AS intents,
          (SELECT coalesce(sum(spent), 0) FROM broker.spend s WHERE s.episode_id = e.id)::text AS spent
         FROM broker.episodes e WHERE e.id = $1`,
      [episodeId],
    );
    return rows[0];
  };

  /** Runs `attempt` as a broker that dies while it waits on the episode row (lease free, fence 0). */
  async function killedWhileWaiting(
    episodeId: string,
    attempt: (effects: EffectsRepository) => Promise<unknown>,
  ): Promise<void> {
    await database.query('INSERT INTO broker.episodes (id) VALUES ($1)', [episodeId]);
    await killWhileWaitingOnLock({
      url: tdb.url,
      sessionOptions: POSTGRES_SESSION_OPTIONS,
      lock: { text: 'SELECT 1 FROM broker.episodes WHERE id = $1 FOR UPDATE', params: [episodeId] },
      attempt: (runner) => attempt(new EffectsRepository(runner as unknown as DatabaseHandle)),
    });
  }

  it('the locking transaction (begin) leaves nothing', async () => {
    await killedWhileWaiting('ep-locking', (effects) =>
      effects.begin(
        'ep-locking',
        { acquire: { holder: 'dead', ttlMs: 60_000, now: Date.now() } },
        () => startOf('ep-locking', 1),
      ),
    );
    expect(await state('ep-locking')).toEqual({ holder: null, intents: '0', spent: '0' });
  });

  it('the one-statement fast path (beginFree) leaves nothing', async () => {
    await killedWhileWaiting('ep-fast', (effects) =>
      effects.beginFree(
        'ep-fast',
        { holder: 'dead', ttlMs: 60_000, now: Date.now(), freeFence: 0 },
        startOf('ep-fast', 1),
      ),
    );
    expect(await state('ep-fast')).toEqual({ holder: null, intents: '0', spent: '0' });
  });
});
