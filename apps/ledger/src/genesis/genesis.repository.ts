/**
 * The only code that writes the genesis: one transaction under the ledger's advisory lock, so
 * replicas booting together on one database create it exactly once.
 */
import { eq, sql } from 'drizzle-orm';
import type { DatabaseHandle } from '@world/runtime';
import { LEDGER_LOCK_KEY } from '../constants.js';
import {
  SELECTED_HEAD,
  commitObjects,
  heads,
  logEntries,
  objects,
  registryHeads,
  worlds,
} from '../db/schema.js';
import type { Genesis } from './genesis.js';

/** Writes the genesis records once per database (DESIGN.md §7.3). */
export class GenesisRepository {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * Writes the genesis unless a head is already selected (a later start never rewrites it, nor
   * resets a registry head that moved since).
   * @returns true when this call created the genesis
   */
  bootstrap(records: Genesis): Promise<boolean> {
    return this.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${LEDGER_LOCK_KEY})`);
      const [existing] = await tx
        .select({ key: heads.key })
        .from(heads)
        .where(eq(heads.key, SELECTED_HEAD));
      if (existing !== undefined) return false;
      const { object, epochRegistry, entry, world } = records;
      await tx
        .insert(objects)
        .values(
          [object, epochRegistry].map((o) => ({
            hash: o.hash,
            interfaceHash: o.interfaceHash,
            semanticId: o.semanticId,
            provenance: o.provenance,
            payload: o.payload,
          })),
        )
        .onConflictDoNothing();
      await tx.insert(logEntries).values({
        entryIndex: entry.header.entryIndex,
        entryHash: entry.entryHash,
        semanticsEpoch: entry.header.semanticsEpoch,
        transitionFn: entry.header.transitionFn,
        interpreter: entry.header.interpreter,
        prevEntryHash: entry.header.prevEntryHash,
        writtenBy: entry.header.writtenBy,
        transitionRef: entry.transitionRef,
      });
      await tx.insert(worlds).values(world);
      await tx
        .insert(commitObjects)
        .values({ objectRef: object.hash, entryIndex: entry.header.entryIndex });
      await tx.insert(heads).values({
        key: SELECTED_HEAD,
        worldRef: world.ref,
        entryIndex: entry.header.entryIndex,
        entryHash: entry.entryHash,
        revision: world.revision,
      });
      await tx
        .insert(registryHeads)
        .values({ name: epochRegistry.semanticId, head: epochRegistry.hash })
        .onConflictDoNothing();
      return true;
    });
  }
}
