import { Inject, Injectable } from '@nestjs/common';
import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { SessionGrant } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { grants, sessions } from '../db/schema.js';
import { spendKey } from '../effects/spend-key.js';

/** A stored session with its grants in mint order. */
export interface SessionRow {
  credentialId: string;
  episodeId: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
  grants: SessionGrant[];
}

/**
 * What the execute path reads of an episode before tx1: its worktree, its lease (holder and
 * fence) and its spend per (effect, scope), all from one snapshot — the lease state and spend
 * let tx1 take a free lease and start the effect in one statement (EffectsRepository.beginFree).
 */
export interface EpisodeView {
  worktree: string | null;
  leaseHolder: string | null;
  leaseFence: number;
  /** `spendKey(effect, scope)` → spent */
  spent: Map<string, number>;
}

/**
 * The only code touching `broker.sessions` and `broker.grants` (`findWithEpisode` also reads an
 * episode's row and spend, to spare the execute path round trips).
 */
@Injectable()
export class SessionsRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /** Inserts a session and its grants in one transaction (never the token: only its sha256). */
  async insert(session: Omit<SessionRow, 'revokedAt'>): Promise<void> {
    await this.database.db.transaction(async (tx) => {
      await tx.insert(sessions).values({
        credentialId: session.credentialId,
        episodeId: session.episodeId,
        createdAt: session.createdAt,
        expiresAt: session.expiresAt,
      });
      await tx.insert(grants).values(
        session.grants.map((g, position) => ({
          credentialId: session.credentialId,
          position,
          effect: g.effect,
          scope: g.scope,
          budget: g.budget,
          expiresAt: g.expiresAt,
        })),
      );
    });
  }

  /**
   * The session with this credential id and its grants in mint order, read in one statement,
   * or null when none was minted.
   */
  async find(credentialId: string): Promise<SessionRow | null> {
    const { rows } = await this.database.query<RawSession>(
      FIND_SQL,
      [credentialId],
      'broker_session_find',
    );
    return rows.length === 0 ? null : sessionRow(rows[0]!);
  }

  /**
   * The execute hot path's one read (world-internals §5): the episode's view (worktree, lease
   * holder and fence, spend; episode null when the row is absent) and the session with this
   * credential id with its grants in mint order (session null when none was minted), in one
   * statement, so from one snapshot. Reads `broker.episodes` and `broker.spend` too; nothing is
   * written.
   */
  async findWithEpisode(
    credentialId: string,
    episodeId: string,
  ): Promise<{ episode: EpisodeView | null; session: SessionRow | null }> {
    const { rows } = await this.database.query<
      Omit<RawSession, 'credential_id'> & {
        credential_id: string | null;
        episode_found: boolean;
        worktree: string | null;
        lease_holder: string | null;
        lease_fence: string | number | null;
        /** [effect, scope, spent] per spend row */
        spend: Array<[string, string, number | string]>;
      }
    >(FIND_WITH_EPISODE_SQL, [episodeId, credentialId], 'broker_session_find_with_episode');
    const row = rows[0]!;
    return {
      episode: row.episode_found
        ? {
            worktree: row.worktree,
            leaseHolder: row.lease_holder,
            leaseFence: Number(row.lease_fence),
            spent: new Map(row.spend.map(([e, sc, n]) => [spendKey(e, sc), Number(n)])),
          }
        : null,
      session:
        row.credential_id === null
          ? null
          : sessionRow({ ...row, credential_id: row.credential_id }),
    };
  }

  /**
   * Marks a session revoked at `now` (first revocation wins).
   * @returns false when no such session exists, true when it is (now) revoked
   */
  async revoke(credentialId: string, now: number): Promise<boolean> {
    const db = this.database.db;
    const updated = await db
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.credentialId, credentialId), isNull(sessions.revokedAt)))
      .returning({ credentialId: sessions.credentialId });
    if (updated.length > 0) return true;
    const [existing] = await db
      .select({ credentialId: sessions.credentialId })
      .from(sessions)
      .where(eq(sessions.credentialId, credentialId));
    return existing !== undefined;
  }

  /** Sessions newest first, optionally of one episode, at most `limit`. */
  async list(episodeId: string | undefined, limit: number): Promise<SessionRow[]> {
    const db = this.database.db;
    const rows = await db
      .select()
      .from(sessions)
      .where(episodeId === undefined ? undefined : eq(sessions.episodeId, episodeId))
      .orderBy(desc(sessions.createdAt), asc(sessions.credentialId))
      .limit(limit);
    const out: SessionRow[] = [];
    for (const row of rows) {
      const g = await db
        .select()
        .from(grants)
        .where(eq(grants.credentialId, row.credentialId))
        .orderBy(asc(grants.position));
      out.push({
        ...row,
        grants: g.map(({ effect, scope, budget, expiresAt }) => ({
          effect,
          scope,
          budget,
          expiresAt,
        })),
      });
    }
    return out;
  }
}

/** A session row as both drivers return it: bigint columns may be text, grants are JSON. */
interface RawSession {
  credential_id: string;
  episode_id: string;
  created_at: string | number;
  expires_at: string | number;
  revoked_at: string | number | null;
  /** [effect, scope, budget, expiresAt] per grant, in mint order */
  grants: Array<[string, string, number | string, number | string]>;
}

function sessionRow(row: RawSession): SessionRow {
  return {
    credentialId: row.credential_id,
    episodeId: row.episode_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    grants: row.grants.map(([effect, scope, budget, expiresAt]) => ({
      effect,
      scope,
      budget: Number(budget),
      expiresAt: Number(expiresAt),
    })),
  };
}

const GRANTS_OF_S = `(SELECT coalesce(
      json_agg(json_build_array(g.effect, g.scope, g.budget, g.expires_at) ORDER BY g.position),
      '[]'::json)
    FROM broker.grants g WHERE g.credential_id = s.credential_id) AS grants`;

const FIND_SQL = `SELECT s.credential_id, s.episode_id, s.created_at, s.expires_at, s.revoked_at,
    ${GRANTS_OF_S}
  FROM broker.sessions s WHERE s.credential_id = $1::text`;

const FIND_WITH_EPISODE_SQL = `SELECT e.id IS NOT NULL AS episode_found, e.worktree,
    e.lease_holder, e.lease_fence,
    (SELECT coalesce(json_agg(json_build_array(sp.effect, sp.scope, sp.spent)), '[]'::json)
      FROM broker.spend sp WHERE sp.episode_id = $1::text) AS spend,
    s.credential_id, s.episode_id, s.created_at, s.expires_at, s.revoked_at,
    ${GRANTS_OF_S}
  FROM (SELECT 1) AS one
  LEFT JOIN broker.episodes e ON e.id = $1::text
  LEFT JOIN broker.sessions s ON s.credential_id = $2::text`;
