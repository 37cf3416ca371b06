/**
 * The only code that reads or moves registry heads (`registry_heads`; world-spec §5.9,
 * world-internals §3.1 epoch_registry_heads).
 */
import { Inject, Injectable } from '@nestjs/common';
import { eq, ne } from 'drizzle-orm';
import type { Ref, WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { objects, registryHeads } from '../db/schema.js';
import { assertRefs, storedRef } from '../db/statements.js';

/** Named registry heads and the objects they point at. */
@Injectable()
export class RegistryRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /** The object a named head points at, or null. */
  async head(name: string): Promise<Ref | null> {
    const [row] = await this.database.db
      .select()
      .from(registryHeads)
      .where(eq(registryHeads.name, name));
    return row === undefined ? null : storedRef(row.head);
  }

  /**
   * Stores the object (first provenance wins) and points the named head at it, in one
   * transaction.
   * @returns true when the head was created or moved, false when it already pointed there
   * @throws InvalidRefError when a ref about to be written is zero or malformed
   */
  async publish(name: string, object: WorldObject, archived: WorldObject[] = []): Promise<boolean> {
    assertRefs({ 'object.hash': object.hash, 'object.interfaceHash': object.interfaceHash });
    archived.forEach((o, i) =>
      assertRefs({
        [`objects[${i}].hash`]: o.hash,
        [`objects[${i}].interfaceHash`]: o.interfaceHash,
      }),
    );
    return this.database.db.transaction(async (tx) => {
      await tx
        .insert(objects)
        .values(
          [object, ...archived].map((o) => ({
            hash: o.hash,
            interfaceHash: o.interfaceHash,
            semanticId: o.semanticId,
            provenance: o.provenance,
            payload: o.payload,
          })),
        )
        .onConflictDoNothing();
      const moved = await tx
        .insert(registryHeads)
        .values({ name, head: object.hash })
        .onConflictDoUpdate({
          target: registryHeads.name,
          set: { head: object.hash },
          setWhere: ne(registryHeads.head, object.hash),
        })
        .returning({ name: registryHeads.name });
      return moved.length === 1;
    });
  }
}
