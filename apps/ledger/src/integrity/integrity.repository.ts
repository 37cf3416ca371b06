/**
 * The reads of the ledger's start-up integrity scan (scan-ledger.ts): entries newest first,
 * the objects the scanned entries carried (newest carrier first), the objects only genesis or
 * nobody carried (the registry archives), and payloads by ref. Reads never lock and never write.
 */
import { desc, eq, gte, inArray, lte, max, notExists, sql } from 'drizzle-orm';
import type { LogEntry, Ref } from '@world/canonical';
import type { DatabaseHandle } from '@world/runtime';
import { SELECTED_HEAD, commitObjects, heads, logEntries, objects } from '../db/schema.js';
import { entryOfRow } from '../db/entry-row.js';
import { storedRef } from '../db/statements.js';

/** The head row's position. */
export interface HeadRow {
  entryIndex: number;
  entryHash: Ref;
}

/** Read-only access for the integrity scan. */
export class IntegrityRepository {
  constructor(private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db;
  }

  /** The selected head's entry position, or null before genesis. */
  async head(): Promise<HeadRow | null> {
    const [row] = await this.db
      .select({ entryIndex: heads.entryIndex, entryHash: heads.entryHash })
      .from(heads)
      .where(eq(heads.key, SELECTED_HEAD));
    return row === undefined
      ? null
      : { entryIndex: row.entryIndex, entryHash: storedRef(row.entryHash) };
  }

  /** Up to `limit` entries at or below `atOrBelow`, newest first (not cut at a gap). */
  async entriesDown(atOrBelow: number, limit: number): Promise<LogEntry[]> {
    const rows = await this.db
      .select()
      .from(logEntries)
      .where(lte(logEntries.entryIndex, atOrBelow))
      .orderBy(desc(logEntries.entryIndex))
      .limit(limit);
    return rows.map(entryOfRow);
  }

  /**
   * The refs of objects carried by entries at or above `lowest`, newest carrier first, at most
   * `limit` (one pass over the memberships).
   */
  async carriedSince(lowest: number, limit: number): Promise<Ref[]> {
    const newest = max(commitObjects.entryIndex);
    const rows = await this.db
      .select({ ref: commitObjects.objectRef, newest })
      .from(commitObjects)
      .where(gte(commitObjects.entryIndex, lowest))
      .groupBy(commitObjects.objectRef)
      .orderBy(desc(newest), commitObjects.objectRef)
      .limit(limit);
    return rows.map((r) => storedRef(r.ref));
  }

  /**
   * The refs of objects no entry carries (the registry archives: tool registry, transition
   * sources, interpreter, epoch registry), at most `limit`.
   */
  async published(limit: number): Promise<Ref[]> {
    const rows = await this.db
      .select({ ref: objects.hash })
      .from(objects)
      .where(
        notExists(
          this.db
            .select({ one: sql`1` })
            .from(commitObjects)
            .where(eq(commitObjects.objectRef, objects.hash)),
        ),
      )
      .orderBy(objects.hash)
      .limit(limit);
    return rows.map((r) => storedRef(r.ref));
  }

  /** The payloads of these refs (absent ones are left out). */
  async payloads(refs: Ref[]): Promise<Array<{ ref: Ref; payload: Buffer }>> {
    if (refs.length === 0) return [];
    const rows = await this.db
      .select({ ref: objects.hash, payload: objects.payload })
      .from(objects)
      .where(inArray(objects.hash, refs));
    return rows.map((r) => ({ ref: storedRef(r.ref), payload: r.payload }));
  }
}

/** A stored tree node. */
export interface TreeNodeRow {
  level: number;
  index: number;
  hash: Buffer;
}

/** Tree reads of the integrity scan (scan-tree.ts). */
export class TreeIntegrityRepository {
  constructor(private readonly database: DatabaseHandle) {}

  /** Every stored node whose leaves start at or above `lowest` (leaves [index·2^level, …)). */
  async nodesFrom(lowest: number): Promise<TreeNodeRow[]> {
    const { rows } = await this.database.query<{
      level: number;
      node_index: unknown;
      hash: Uint8Array;
    }>(
      `SELECT level, node_index, hash FROM ledger.tree_nodes
        WHERE node_index * (1::bigint << level) >= $1::bigint`,
      [lowest],
    );
    return rows.map((r) => ({
      level: Number(r.level),
      index: Number(r.node_index),
      hash: Buffer.from(r.hash),
    }));
  }

  /** The head row's stored tree border (null before the tree was built). */
  async headBorder(): Promise<Buffer | null> {
    const { rows } = await this.database.query<{ tree_border: Uint8Array | null }>(
      `SELECT tree_border FROM ledger.heads WHERE key = 'selected'`,
    );
    const border = rows[0]?.tree_border ?? null;
    return border === null ? null : Buffer.from(border);
  }
}
