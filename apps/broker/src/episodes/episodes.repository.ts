import { Inject, Injectable } from '@nestjs/common';
import { eq, isNull, lte, or, type SQL } from 'drizzle-orm';
import { DATABASE, type DatabaseHandle, type RawQuery } from '@world/runtime';
import { episodes } from '../db/schema.js';
import { statement, type Bind } from '../db/statement.js';

/** The NOTIFY channel a lease release is announced on (payload: the episode id). */
export const LEASE_CHANNEL = 'world_broker_lease';

/** An episode row. */
export interface EpisodeRow {
  id: string;
  worktree: string | null;
  leaseHolder: string | null;
  leaseFence: number;
  leaseExpiresAt: number | null;
}

/** A lease just taken: its fencing token, expiry (epoch ms) and whether it replaced an expired holder. */
export interface LeaseGrant {
  fence: number;
  expiresAt: number;
  tookOver: boolean;
}

/** The only code touching `broker.episodes`. */
@Injectable()
export class EpisodesRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async get(id: string): Promise<EpisodeRow | null> {
    const [row] = await this.database.db.select().from(episodes).where(eq(episodes.id, id));
    return row ?? null;
  }

  /**
   * Binds a worktree to an episode (creating the row when absent).
   * @returns 'bound' when newly bound, 'same' when already bound to this worktree,
   *   'other' when bound to a different one, 'taken' when another episode owns the worktree
   */
  async bindWorktree(id: string, worktree: string): Promise<'bound' | 'same' | 'other' | 'taken'> {
    return this.database.db.transaction(async (tx) => {
      const [owner] = await tx
        .select({ id: episodes.id })
        .from(episodes)
        .where(eq(episodes.worktree, worktree));
      if (owner !== undefined && owner.id !== id) return 'taken';
      await tx.insert(episodes).values({ id }).onConflictDoNothing();
      const [row] = await tx.select().from(episodes).where(eq(episodes.id, id)).for('update');
      if (row!.worktree === worktree) return 'same';
      if (row!.worktree !== null) return 'other';
      await tx.update(episodes).set({ worktree }).where(eq(episodes.id, id));
      return 'bound';
    });
  }

  /**
   * Takes the lease when it is free or expired (now ≥ expiry): fence += 1 (DESIGN.md §2).
   * Creates the episode row when absent (a lease can be taken before `episode.create`).
   * @returns the grant, or the current holder's expiry when the lease is held
   */
  async tryAcquire(
    id: string,
    holder: string,
    ttlMs: number,
    now: number,
  ): Promise<LeaseGrant | { heldUntil: number }> {
    return this.database.transaction(async (query) => {
      await INSERT_EPISODE.run(query, { id });
      return (await EpisodesRepository.claim(query, id, holder, ttlMs, now))!;
    });
  }

  /** Extends a lease held by holder+fence to now + ttl. @returns the new expiry, or null when not held so */
  async renew(
    id: string,
    holder: string,
    fence: number,
    ttlMs: number,
    now: number,
  ): Promise<number | null> {
    const expiresAt = now + ttlMs;
    const { rows } = await RENEW.run(this.database.query, { id, holder, fence, expiresAt });
    return rows.length > 0 ? expiresAt : null;
  }

  /**
   * Frees a lease held by holder+fence and NOTIFYs other replicas' waiters, in one statement
   * (its own transaction: the update and the NOTIFY commit together). It commits asynchronously
   * (`synchronous_commit` off for this transaction only, set inside the statement): visible at
   * once, durable with the next WAL flush (≤ 3 × wal_writer_delay), without waiting for one of
   * its own. Why that is safe: a release lost in an OS or server crash leaves the lease held
   * until its expiry (≤ EPISODE_LEASE_TTL_MS after the last renewal), the state a holder that died
   * before releasing leaves, which expiry already resolves (and which the broker shortens by
   * running its recent releases again once the server is back: RecentReleases); and nothing
   * durable can build on a lost release, since any later write that takes the lease (tx1)
   * commits synchronously and so flushes the WAL up to and past the release. The fence is not
   * touched (taking the lease bumps it), so fencing is unchanged (DESIGN.md §2; PostgreSQL
   * "Asynchronous Commit").
   * @returns whether it was held so
   */
  async release(id: string, holder: string, fence: number): Promise<boolean> {
    const { rows } = await RELEASE.run(this.database.query, {
      id,
      holder,
      fence,
      channel: LEASE_CHANNEL,
    });
    return rows.length > 0;
  }

  /**
   * Locks an episode row FOR UPDATE inside the caller's transaction, so spends of one episode
   * serialize (world-internals §5.2). @returns the row, or null when absent
   */
  static async lock(query: RawQuery, id: string): Promise<EpisodeRow | null> {
    const [row] = (await LOCK.run<RawEpisode>(query, { id })).rows;
    return row === undefined ? null : episodeRow(row);
  }

  /**
   * Inside the caller's transaction: locks the episode row FOR UPDATE and takes its lease when
   * free or expired (now ≥ expiry; fence += 1), in one statement. The lock stays held until the
   * caller's transaction ends, so what follows in it is serialized with every other spend and
   * lease change of the episode (world-internals §5.2).
   * @returns the grant (with the locked row's worktree), the current holder's expiry when the
   *   lease is held (nothing written), or null when the episode row does not exist
   */
  static async claim(
    query: RawQuery,
    id: string,
    holder: string,
    ttlMs: number,
    now: number,
  ): Promise<(LeaseGrant & { worktree: string | null }) | { heldUntil: number } | null> {
    const expiresAt = now + ttlMs;
    const [row] = (await CLAIM.run<RawClaim>(query, { id, holder, now, expiresAt })).rows;
    if (row === undefined) return null;
    if (row.new_fence === null) return { heldUntil: Number(row.lease_expires_at) };
    return {
      fence: Number(row.new_fence),
      expiresAt,
      tookOver: row.lease_holder !== null,
      worktree: row.worktree,
    };
  }

  /**
   * tx1's one-statement lease claim, as a CTE to compose into the caller's statement
   * (EffectsRepository.beginFree): takes the lease (fence + 1, holder, expiry) only while it is
   * still free at the fence the caller read (`freeFence`); its rows (`FREE_CLAIM.rows`) are one
   * row with the new fence when it took the lease, none when the lease was taken or moved since.
   */
  static freeClaimCte(bind: Bind<FreeClaimKey>): string {
    return `${FREE_CLAIM.rows} AS (
    UPDATE broker.episodes
    SET lease_holder = ${bind('holder', 'text')}, lease_fence = lease_fence + 1, lease_expires_at = ${bind('expiresAt', 'bigint')}
    WHERE id = ${bind('episodeId', 'text')} AND lease_holder IS NULL AND lease_fence = ${bind('freeFence', 'bigint')}
    RETURNING lease_fence
  )`;
  }

  /**
   * The episode part of the execute path's one read (SessionsRepository.findWithEpisode): the
   * columns of `EpisodeView` but its spend, from the episode row joined as `e` on `episodeId`
   * (`e.id` is null when the row is absent).
   */
  static viewSql(bind: Bind<'episodeId'>): { columns: string; join: string } {
    return {
      columns: 'e.id IS NOT NULL AS episode_found, e.worktree,\n    e.lease_holder, e.lease_fence',
      join: `LEFT JOIN broker.episodes e ON e.id = ${bind('episodeId', 'text')}`,
    };
  }

  /** The episode columns of `viewSql` as read (null when the row was absent). */
  static viewOf(row: RawView): Omit<EpisodeView, 'spent'> | null {
    if (!row.episode_found) return null;
    return {
      worktree: row.worktree,
      leaseHolder: row.lease_holder,
      leaseFence: Number(row.lease_fence),
    };
  }

  /**
   * The condition "the episode's lease is not live at `nowMs`" over drizzle's `episodes` table
   * (joined by the caller): released, or expired (now ≥ expiry), as `leaseLive` decides it.
   */
  static leaseNotLive(nowMs: number): SQL {
    return or(
      isNull(episodes.leaseHolder),
      isNull(episodes.leaseExpiresAt),
      lte(episodes.leaseExpiresAt, nowMs),
    )!;
  }
}

/**
 * Whether an episode's lease is held at `now` (epoch ms): a holder whose expiry is still ahead
 * (DESIGN.md §2; a lease is free from its release or from now ≥ expiry on). Pure.
 */
export function leaseLive(
  row: Pick<EpisodeRow, 'leaseHolder' | 'leaseExpiresAt'>,
  now: number,
): boolean {
  return row.leaseHolder !== null && row.leaseExpiresAt !== null && now < row.leaseExpiresAt;
}

/** The execute path's view of an episode (read with the session: findWithEpisode). */
export interface EpisodeView {
  worktree: string | null;
  leaseHolder: string | null;
  leaseFence: number;
  /** `spendKey(effect, scope)` → spent */
  spent: Map<string, number>;
}

/** The parameters `freeClaimCte` binds. */
export type FreeClaimKey = 'episodeId' | 'holder' | 'freeFence' | 'expiresAt';

/** How a statement composed with `freeClaimCte` refers to its claim. */
export const FREE_CLAIM = {
  /** the CTE's name: select FROM it to gate a write on the claim */
  rows: 'took',
  /** true when the claim took the lease */
  taken: 'EXISTS (SELECT 1 FROM took)',
  /** the new fence (null when not taken) */
  fence: '(SELECT lease_fence FROM took)',
} as const;

/** The episode columns of `viewSql` as both drivers return them. */
export interface RawView {
  episode_found: boolean;
  worktree: string | null;
  lease_holder: string | null;
  lease_fence: string | number | null;
}

/** An episode row as both drivers return it (bigint columns may come back as text). */
interface RawEpisode {
  id: string;
  worktree: string | null;
  lease_holder: string | null;
  lease_fence: string | number;
  lease_expires_at: string | number | null;
}

interface RawClaim {
  worktree: string | null;
  lease_holder: string | null;
  lease_expires_at: string | number | null;
  new_fence: string | number | null;
}

function episodeRow(row: RawEpisode): EpisodeRow {
  return {
    id: row.id,
    worktree: row.worktree,
    leaseHolder: row.lease_holder,
    leaseFence: Number(row.lease_fence),
    leaseExpiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
  };
}

const INSERT_EPISODE = statement<{ id: string }>(
  'broker_episode_insert',
  (p) => `INSERT INTO broker.episodes (id) VALUES (${p('id', 'text')}) ON CONFLICT DO NOTHING`,
);

const LOCK = statement<{ id: string }>(
  'broker_episode_lock',
  (p) => `SELECT id, worktree, lease_holder, lease_fence, lease_expires_at
  FROM broker.episodes WHERE id = ${p('id', 'text')} FOR UPDATE`,
);

/**
 * `cur` locks the row (in READ COMMITTED, FOR UPDATE waits for a concurrent writer and returns
 * the row's latest committed version); `took` sets the lease only when that version shows it
 * free or expired (conditions on `cur`, never on the statement's snapshot of the row, which may
 * be older), fence = its fence + 1; the answer carries the locked row's holder and expiry and,
 * when taken, the new fence.
 */
const CLAIM = statement<{ id: string; holder: string; now: number; expiresAt: number }>(
  'broker_lease_claim',
  (p) => `WITH cur AS (
    SELECT id, worktree, lease_holder, lease_fence, lease_expires_at
    FROM broker.episodes WHERE id = ${p('id', 'text')} FOR UPDATE
  ), took AS (
    UPDATE broker.episodes e
    SET lease_holder = ${p('holder', 'text')}, lease_fence = cur.lease_fence + 1, lease_expires_at = ${p('expiresAt', 'bigint')}
    FROM cur
    WHERE e.id = cur.id
      AND (cur.lease_holder IS NULL OR cur.lease_expires_at IS NULL
        OR ${p('now', 'bigint')} >= cur.lease_expires_at)
    RETURNING e.lease_fence
  )
  SELECT cur.worktree, cur.lease_holder, cur.lease_expires_at, took.lease_fence AS new_fence
  FROM cur LEFT JOIN took ON true`,
);

const RENEW = statement<{ id: string; holder: string; fence: number; expiresAt: number }>(
  'broker_lease_renew',
  (p) => `UPDATE broker.episodes SET lease_expires_at = ${p('expiresAt', 'bigint')}
  WHERE id = ${p('id', 'text')} AND lease_holder = ${p('holder', 'text')} AND lease_fence = ${p('fence', 'bigint')}
  RETURNING id`,
);

const RELEASE = statement<{ id: string; holder: string; fence: number; channel: string }>(
  'broker_lease_release',
  (p) => `WITH freed AS (
    UPDATE broker.episodes SET lease_holder = NULL, lease_expires_at = NULL
    WHERE id = ${p('id', 'text')} AND lease_holder = ${p('holder', 'text')} AND lease_fence = ${p('fence', 'bigint')}
    RETURNING id
  )
  SELECT freed.id, pg_notify(${p('channel', 'text')}, freed.id)::text AS notified,
    set_config('synchronous_commit', 'off', true) AS commit_mode FROM freed`,
);
