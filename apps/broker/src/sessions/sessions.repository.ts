import { Inject, Injectable } from '@nestjs/common';
import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { SessionGrant } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { grants, sessions } from '../db/schema.js';

/** A stored session with its grants in mint order. */
export interface SessionRow {
  credentialId: string;
  episodeId: string;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
  grants: SessionGrant[];
}

/** The only code touching `broker.sessions` and `broker.grants`. */
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

  /** The session with this credential id, or null when none was minted. */
  async find(credentialId: string): Promise<SessionRow | null> {
    const db = this.database.db;
    const [row] = await db.select().from(sessions).where(eq(sessions.credentialId, credentialId));
    if (row === undefined) return null;
    const rows = await db
      .select()
      .from(grants)
      .where(eq(grants.credentialId, credentialId))
      .orderBy(asc(grants.position));
    return {
      ...row,
      grants: rows.map(({ effect, scope, budget, expiresAt }) => ({
        effect,
        scope,
        budget,
        expiresAt,
      })),
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
