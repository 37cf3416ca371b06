import { Inject, Injectable } from '@nestjs/common';
import { eq } from 'drizzle-orm';
import { DATABASE, type DatabaseHandle, type RawQuery } from '@world/runtime';
import { episodes } from '../db/schema.js';

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
      await query(INSERT_EPISODE_SQL, [id], 'broker_episode_insert');
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
    const { rows } = await this.database.query(
      RENEW_SQL,
      [id, holder, fence, expiresAt],
      'broker_lease_renew',
    );
    return rows.length > 0 ? expiresAt : null;
  }

  /**
   * Frees a lease held by holder+fence and NOTIFYs other replicas' waiters, in one statement
   * (its own transaction: the update and the NOTIFY commit together).
   * @returns whether it was held so
   */
  async release(id: string, holder: string, fence: number): Promise<boolean> {
    const { rows } = await this.database.query(
      RELEASE_SQL,
      [id, holder, fence, LEASE_CHANNEL],
      'broker_lease_release',
    );
    return rows.length > 0;
  }

  /**
   * Locks an episode row FOR UPDATE inside the caller's transaction, so spends of one episode
   * serialize (world-internals §5.2). @returns the row, or null when absent
   */
  static async lock(query: RawQuery, id: string): Promise<EpisodeRow | null> {
    const { rows } = await query<RawEpisode>(LOCK_SQL, [id], 'broker_episode_lock');
    return rows.length === 0 ? null : episodeRow(rows[0]!);
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
    const { rows } = await query<RawClaim>(
      CLAIM_SQL,
      [id, holder, now, now + ttlMs],
      'broker_lease_claim',
    );
    const row = rows[0];
    if (row === undefined) return null;
    if (row.new_fence === null) return { heldUntil: Number(row.lease_expires_at) };
    return {
      fence: Number(row.new_fence),
      expiresAt: now + ttlMs,
      tookOver: row.lease_holder !== null,
      worktree: row.worktree,
    };
  }
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

const INSERT_EPISODE_SQL =
  'INSERT INTO broker.episodes (id) VALUES ($1::text) ON CONFLICT DO NOTHING';

const LOCK_SQL = `SELECT id, worktree, lease_holder, lease_fence, lease_expires_at
  FROM broker.episodes WHERE id = $1::text FOR UPDATE`;

/**
 * `cur` locks the row (in READ COMMITTED, FOR UPDATE waits for a concurrent writer and returns
 * the row's latest committed version); `took` sets the lease only when that version shows it
 * free or expired (conditions on `cur`, never on the statement's snapshot of the row, which may
 * be older), fence = its fence + 1; the answer carries the locked row's holder and expiry and,
 * when taken, the new fence.
 */
const CLAIM_SQL = `WITH cur AS (
    SELECT id, worktree, lease_holder, lease_fence, lease_expires_at
    FROM broker.episodes WHERE id = $1::text FOR UPDATE
  ), took AS (
    UPDATE broker.episodes e
    SET lease_holder = $2::text, lease_fence = cur.lease_fence + 1, lease_expires_at = $4::bigint
    FROM cur
    WHERE e.id = cur.id
      AND (cur.lease_holder IS NULL OR cur.lease_expires_at IS NULL
        OR $3::bigint >= cur.lease_expires_at)
    RETURNING e.lease_fence
  )
  SELECT cur.worktree, cur.lease_holder, cur.lease_expires_at, took.lease_fence AS new_fence
  FROM cur LEFT JOIN took ON true`;

const RENEW_SQL = `UPDATE broker.episodes SET lease_expires_at = $4::bigint
  WHERE id = $1::text AND lease_holder = $2::text AND lease_fence = $3::bigint
  RETURNING id`;

const RELEASE_SQL = `WITH freed AS (
    UPDATE broker.episodes SET lease_holder = NULL, lease_expires_at = NULL
    WHERE id = $1::text AND lease_holder = $2::text AND lease_fence = $3::bigint
    RETURNING id
  )
  SELECT freed.id, pg_notify($4::text, freed.id)::text AS notified FROM freed`;
