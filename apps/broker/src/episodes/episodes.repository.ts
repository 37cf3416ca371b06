import { Inject, Injectable } from '@nestjs/common';
import { and, eq, sql } from 'drizzle-orm';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { episodes } from '../db/schema.js';
import type { Queryable } from '../db/types.js';

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
   * @returns the grant, or the current holder's expiry when the lease is held
   */
  async tryAcquire(
    id: string,
    holder: string,
    ttlMs: number,
    now: number,
  ): Promise<LeaseGrant | { heldUntil: number }> {
    return this.database.db.transaction(async (tx) => {
      await tx.insert(episodes).values({ id }).onConflictDoNothing();
      const row = (await EpisodesRepository.lock(tx, id))!;
      const held =
        row.leaseHolder !== null && row.leaseExpiresAt !== null && now < row.leaseExpiresAt;
      if (held) return { heldUntil: row.leaseExpiresAt! };
      const fence = row.leaseFence + 1;
      const expiresAt = now + ttlMs;
      await tx
        .update(episodes)
        .set({ leaseHolder: holder, leaseFence: fence, leaseExpiresAt: expiresAt })
        .where(eq(episodes.id, id));
      return { fence, expiresAt, tookOver: row.leaseHolder !== null };
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
    const rows = await this.database.db
      .update(episodes)
      .set({ leaseExpiresAt: expiresAt })
      .where(
        and(eq(episodes.id, id), eq(episodes.leaseHolder, holder), eq(episodes.leaseFence, fence)),
      )
      .returning({ id: episodes.id });
    return rows.length > 0 ? expiresAt : null;
  }

  /** Frees a lease held by holder+fence and NOTIFYs other replicas' waiters. @returns whether it was held so */
  async release(id: string, holder: string, fence: number): Promise<boolean> {
    return this.database.db.transaction(async (tx) => {
      const rows = await tx
        .update(episodes)
        .set({ leaseHolder: null, leaseExpiresAt: null })
        .where(
          and(
            eq(episodes.id, id),
            eq(episodes.leaseHolder, holder),
            eq(episodes.leaseFence, fence),
          ),
        )
        .returning({ id: episodes.id });
      if (rows.length === 0) return false;
      await tx.execute(sql`SELECT pg_notify(${LEASE_CHANNEL}, ${id})`);
      return true;
    });
  }

  /**
   * Locks an episode row FOR UPDATE inside the caller's transaction, so spends of one episode
   * serialize (world-internals §5.2). @returns the row, or null when absent
   */
  static async lock(tx: Queryable, id: string): Promise<EpisodeRow | null> {
    const [row] = await tx.select().from(episodes).where(eq(episodes.id, id)).for('update');
    return row ?? null;
  }
}
