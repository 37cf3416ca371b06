/**
 * The only code that reads the log, worlds, objects and the head for the read subjects
 * (world-spec §5.3–§5.8). Reads never lock and never write.
 */
import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, gt, gte, type SQL } from 'drizzle-orm';
import type { LogEntry, Ref, World } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { SELECTED_HEAD, heads, logEntries, objects, worlds } from '../db/schema.js';
import { ENTRY_COLUMNS, entryOfRow } from '../db/entry-row.js';
import { storedRef } from '../db/statements.js';
import { readableBy } from './ownership.js';

/** An object's envelope, with its payload when asked for. */
export interface StoredObject {
  hash: Ref;
  interfaceHash: Ref;
  semanticId: string;
  provenance: string;
  payload?: Buffer;
}

function toWorld(row: typeof worlds.$inferSelect): World {
  return {
    ref: storedRef(row.ref),
    revision: row.revision,
    stateRoot: storedRef(row.stateRoot),
    logHead: storedRef(row.logHead),
  };
}

const envelope = {
  hash: objects.hash,
  interfaceHash: objects.interfaceHash,
  semanticId: objects.semanticId,
  provenance: objects.provenance,
};

function toObject(row: {
  hash: string;
  interfaceHash: string;
  semanticId: string;
  provenance: string;
}): StoredObject {
  return {
    hash: storedRef(row.hash),
    interfaceHash: storedRef(row.interfaceHash),
    semanticId: row.semanticId,
    provenance: row.provenance,
  };
}

/** Read-only access to the head, worlds, objects and log entries. */
@Injectable()
export class ReadsRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db;
  }

  /** The selected head with its world, or null before genesis. */
  async head(): Promise<{ world: World; entryIndex: number } | null> {
    const [row] = await this.db
      .select({ world: worlds, entryIndex: heads.entryIndex })
      .from(heads)
      .innerJoin(worlds, eq(worlds.ref, heads.worldRef))
      .where(eq(heads.key, SELECTED_HEAD));
    return row === undefined ? null : { world: toWorld(row.world), entryIndex: row.entryIndex };
  }

  /** One world row, or null. */
  async world(ref: Ref): Promise<World | null> {
    const [row] = await this.db.select().from(worlds).where(eq(worlds.ref, ref));
    return row === undefined ? null : toWorld(row);
  }

  /**
   * One object's envelope (and payload when `withPayload`), or null.
   * @param episode the episode the read is confined to (reads/ownership.ts), null for none
   */
  async object(
    ref: Ref,
    withPayload: boolean,
    episode: string | null,
  ): Promise<StoredObject | null> {
    const where = and(eq(objects.hash, ref), episode === null ? undefined : readableBy(episode));
    if (withPayload) {
      const [row] = await this.db.select().from(objects).where(where);
      return row === undefined ? null : { ...toObject(row), payload: row.payload };
    }
    const [row] = await this.db.select(envelope).from(objects).where(where);
    return row === undefined ? null : toObject(row);
  }

  /**
   * Envelopes of one semantic id in ascending hash order, strictly after `after` (keyset).
   * @param episode the episode the read is confined to (reads/ownership.ts), null for none
   */
  async objectsBySemanticId(
    semanticId: string,
    after: Ref | undefined,
    limit: number,
    episode: string | null,
  ): Promise<StoredObject[]> {
    const where: SQL | undefined = and(
      eq(objects.semanticId, semanticId),
      after === undefined ? undefined : gt(objects.hash, after),
      episode === null ? undefined : readableBy(episode),
    );
    const rows = await this.db
      .select(envelope)
      .from(objects)
      .where(where)
      .orderBy(asc(objects.hash))
      .limit(limit);
    return rows.map(toObject);
  }

  /** One log entry, or null. */
  async entry(index: number): Promise<LogEntry | null> {
    const [row] = await this.db
      .select(ENTRY_COLUMNS)
      .from(logEntries)
      .where(eq(logEntries.entryIndex, index));
    return row === undefined ? null : entryOfRow(row);
  }

  /** Up to `limit` entries at or after `from`, ascending by index (not yet cut at a gap). */
  async entriesFrom(from: number, limit: number): Promise<LogEntry[]> {
    const rows = await this.db
      .select(ENTRY_COLUMNS)
      .from(logEntries)
      .where(gte(logEntries.entryIndex, from))
      .orderBy(asc(logEntries.entryIndex))
      .limit(limit);
    return rows.map(entryOfRow);
  }
}
