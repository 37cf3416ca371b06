import { Inject, Injectable } from '@nestjs/common';
import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { SessionGrant } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { grants, sessions } from '../db/schema.js';
import { statement } from '../db/statement.js';
import { EffectsRepository, spendKey } from '../effects/effects.repository.js';
import {
  EpisodesRepository,
  type EpisodeView,
  type RawView,
} from '../episodes/episodes.repository.js';

export type { EpisodeView };

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
 * The only code touching `broker.sessions` and `broker.grants` (`findWithEpisode` also reads an
 * episode's row and spend, through the fragments of their repositories, to spare the execute
 * path round trips).
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
    const [row] = (await FIND.run<RawSession>(this.database.query, { credentialId })).rows;
    return row === undefined ? null : sessionRow(row);
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
    const [row] = (
      await FIND_WITH_EPISODE.run<
        Omit<RawSession, 'credential_id'> &
          RawView & {
            credential_id: string | null;
            spend: Array<{ effect: string; scope: string; spent: number | string }>;
          }
      >(this.database.query, { episodeId, credentialId })
    ).rows;
    const episode = EpisodesRepository.viewOf(row!);
    return {
      episode:
        episode === null
          ? null
          : {
              ...episode,
              spent: new Map(
                row!.spend.map((sp) => [spendKey(sp.effect, sp.scope), Number(sp.spent)]),
              ),
            },
      session:
        row!.credential_id === null
          ? null
          : sessionRow({ ...row!, credential_id: row!.credential_id }),
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
  /** the grants in mint order */
  grants: Array<{
    effect: string;
    scope: string;
    budget: number | string;
    expiresAt: number | string;
  }>;
}

function sessionRow(row: RawSession): SessionRow {
  return {
    credentialId: row.credential_id,
    episodeId: row.episode_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    grants: row.grants.map((g) => ({
      effect: g.effect,
      scope: g.scope,
      budget: Number(g.budget),
      expiresAt: Number(g.expiresAt),
    })),
  };
}

const GRANTS_OF_S = `(SELECT coalesce(
      json_agg(json_build_object('effect', g.effect, 'scope', g.scope, 'budget', g.budget,
        'expiresAt', g.expires_at) ORDER BY g.position),
      '[]'::json)
    FROM broker.grants g WHERE g.credential_id = s.credential_id) AS grants`;

const FIND = statement<{ credentialId: string }>(
  'broker_session_find',
  (p) => `SELECT s.credential_id, s.episode_id, s.created_at, s.expires_at, s.revoked_at,
    ${GRANTS_OF_S}
  FROM broker.sessions s WHERE s.credential_id = ${p('credentialId', 'text')}`,
);

/** findWithEpisode: the episode's view and spend and the session, one row from one snapshot. */
const FIND_WITH_EPISODE = statement<{ episodeId: string; credentialId: string }>(
  'broker_session_find_with_episode',
  (p) => {
    const episode = EpisodesRepository.viewSql(p);
    return `SELECT ${episode.columns},
    ${EffectsRepository.spendJsonSql(p)} AS spend,
    s.credential_id, s.episode_id, s.created_at, s.expires_at, s.revoked_at,
    ${GRANTS_OF_S}
  FROM (SELECT 1) AS one
  ${episode.join}
  LEFT JOIN broker.sessions s ON s.credential_id = ${p('credentialId', 'text')}`;
  },
);
