import { Inject, Injectable } from '@nestjs/common';
import { eq } from 'drizzle-orm';
import { interfaceHashOf, type Ref, type WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { objects } from '../db/schema.js';
import type { Queryable } from '../db/types.js';

/** The only code touching `broker.objects`: request, result and record objects. */
@Injectable()
export class ObjectsRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /** The object with this ref, or null. */
  async get(ref: string): Promise<WorldObject | null> {
    const [row] = await this.database.db.select().from(objects).where(eq(objects.ref, ref));
    if (row === undefined) return null;
    return {
      hash: row.ref as Ref,
      interfaceHash: interfaceHashOf(row.semanticId),
      semanticId: row.semanticId,
      provenance: row.provenance,
      payload: row.payload,
    };
  }

  /**
   * Inserts objects inside the caller's transaction; an object already stored is kept as it is
   * (content-addressed: same ref, same bytes; first writer's provenance wins).
   */
  static async insertMany(tx: Queryable, items: readonly WorldObject[]): Promise<void> {
    if (items.length === 0) return;
    await tx
      .insert(objects)
      .values(
        items.map((o) => ({
          ref: o.hash,
          semanticId: o.semanticId,
          provenance: o.provenance,
          payload: o.payload,
        })),
      )
      .onConflictDoNothing();
  }
}
