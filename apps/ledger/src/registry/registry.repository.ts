/**
 * The only code that reads or moves registry heads (`registry_heads`; world-spec §5.9,
 * world-internals §3.1 epoch_registry_heads).
 */
import { Inject, Injectable } from '@nestjs/common';
import { eq } from 'drizzle-orm';
import type { Ref, WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { registryHeads } from '../db/schema.js';
import { INSERT_OBJECTS, insertObjectsParams, storedRef } from '../db/statements.js';

/** The named head created or moved to $2; returns a row unless it already pointed there. */
const MOVE_HEAD = `INSERT INTO ledger.registry_heads (name, head) VALUES ($1::text, $2::text)
ON CONFLICT (name) DO UPDATE SET head = excluded.head
 WHERE registry_heads.head <> excluded.head
RETURNING name`;

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
   * Stores the object and those it names (first provenance wins) and points the named head at
   * it, in one transaction.
   * @returns true when the head was created or moved, false when it already pointed there
   * @throws InvalidRefError when a ref about to be written is zero or malformed (nothing is sent)
   */
  async publish(name: string, object: WorldObject, archived: WorldObject[] = []): Promise<boolean> {
    const objects = insertObjectsParams([object, ...archived], (i) =>
      i === 0 ? 'object' : `objects[${i - 1}]`,
    );
    return this.database.transaction(async (query) => {
      await query(INSERT_OBJECTS, objects);
      const { rows } = await query(MOVE_HEAD, [name, object.hash]);
      return rows.length === 1;
    });
  }
}
