/**
 * The reads of the broker's start-up integrity scan (scan-broker.ts): its objects newest first,
 * each effect record object with the `effect_records` row stored under the same ref. Reads never
 * lock and never write.
 */
import { desc, eq, lt } from 'drizzle-orm';
import type { DatabaseHandle } from '@world/runtime';
import { effectRecords, objects } from '../db/schema.js';

/** One stored object as the scan reads it, with the record row of the same ref (if any). */
export interface ScannedObject {
  seq: number;
  ref: string;
  semanticId: string;
  payload: Buffer;
  record: typeof effectRecords.$inferSelect | null;
}

/** Read-only access for the integrity scan. */
export class IntegrityRepository {
  constructor(private readonly database: DatabaseHandle) {}

  /** Up to `limit` objects stored before `below` (a `seq`; null = the newest), newest first. */
  async objectsBefore(below: number | null, limit: number): Promise<ScannedObject[]> {
    const rows = await this.database.db
      .select({
        seq: objects.seq,
        ref: objects.ref,
        semanticId: objects.semanticId,
        payload: objects.payload,
        record: effectRecords,
      })
      .from(objects)
      .leftJoin(effectRecords, eq(effectRecords.ref, objects.ref))
      .where(below === null ? undefined : lt(objects.seq, below))
      .orderBy(desc(objects.seq))
      .limit(limit);
    return rows;
  }
}
