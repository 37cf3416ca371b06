import { Inject, Injectable } from '@nestjs/common';
import { and, eq, sql } from 'drizzle-orm';
import { interfaceHashOf, type Ref, type WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { objects } from '../db/schema.js';

/**
 * The condition "the object in this row belongs to `episode`" (the facts behind contracts
 * `confinementOf`, DESIGN.md §3): it is the record, request or result of one of the episode's
 * effect records, or the request of one of its intents (an effect whose record is not written
 * yet). Every broker object is an effect's, so none is published to everyone.
 */
function ownedBy(episode: string) {
  return sql`(EXISTS (SELECT 1 FROM broker.effect_records r
                   WHERE r.ref = ${objects.ref} AND r.episode_id = ${episode})
    OR EXISTS (SELECT 1 FROM broker.effect_intents i
                WHERE i.episode_id = ${episode} AND i.request_ref = ${objects.ref})
    OR EXISTS (SELECT 1 FROM broker.effect_records r
                WHERE r.episode_id = ${episode}
                  AND (r.request_ref = ${objects.ref} OR r.result_ref = ${objects.ref})))`;
}

/** The only code touching `broker.objects`: request, result and record objects. */
@Injectable()
export class ObjectsRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * The object with this ref, or null.
   * @param episode the episode the read is confined to, null for none: an object of another
   *   episode's effects reads as absent
   */
  async get(ref: string, episode: string | null = null): Promise<WorldObject | null> {
    const [row] = await this.database.db
      .select()
      .from(objects)
      .where(and(eq(objects.ref, ref), episode === null ? undefined : ownedBy(episode)));
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
   * Inserting objects, as a statement to compose into the caller's (a CTE of tx1 or tx2): the
   * INSERT of `count` objects whose parameters start at `$first` (four per object: ref, semantic
   * id, provenance, payload; see `insertParams`). An object already stored is kept as it is
   * (content-addressed: same ref, same bytes; first writer's provenance wins). The text depends
   * only on its arguments, so a statement built from it can be named (prepared once per
   * connection). With `when` (an SQL condition, e.g. on a CTE), the rows are inserted only when
   * it holds.
   */
  static insertSql(count: number, first: number, when?: string): string {
    const rows = Array.from({ length: count }, (_, i) => {
      const p = first + i * 4;
      return `($${p}::text, $${p + 1}::text, $${p + 2}::text, $${p + 3}::bytea)`;
    });
    const into = 'INSERT INTO broker.objects (ref, semantic_id, provenance, payload)';
    return when === undefined
      ? `${into} VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`
      : `${into} SELECT * FROM (VALUES ${rows.join(', ')}) AS v WHERE ${when} ON CONFLICT DO NOTHING`;
  }

  /** The parameters of `insertSql` for these objects, in order. */
  static insertParams(items: readonly WorldObject[]): unknown[] {
    return items.flatMap((o) => [o.hash, o.semanticId, o.provenance, o.payload]);
  }
}
