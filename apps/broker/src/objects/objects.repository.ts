import { Inject, Injectable } from '@nestjs/common';
import { and, eq, sql } from 'drizzle-orm';
import { interfaceHashOf, type Ref, type WorldObject } from '@world/canonical';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { objects } from '../db/schema.js';
import type { Bind } from '../db/statement.js';

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
   * INSERT of `count` objects whose parameters are named `object<i>.<field>` (see
   * `insertValues`). An object already stored is kept as it is (content-addressed: same ref,
   * same bytes; first writer's provenance wins). The text depends only on `count` and `when`,
   * so a statement built from it can be named (prepared once per connection). With `when` (an
   * SQL condition, e.g. on a CTE), the rows are inserted only when it holds.
   */
  static insertSql(bind: Bind<ObjectKey>, count: number, when?: string): string {
    const rows = Array.from(
      { length: count },
      (_, i) =>
        `(${bind(`object${i}.ref`, 'text')}, ${bind(`object${i}.semanticId`, 'text')}, ` +
        `${bind(`object${i}.provenance`, 'text')}, ${bind(`object${i}.payload`, 'bytea')})`,
    );
    const into = 'INSERT INTO broker.objects (ref, semantic_id, provenance, payload)';
    return when === undefined
      ? `${into} VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`
      : `${into} SELECT * FROM (VALUES ${rows.join(', ')}) AS v WHERE ${when} ON CONFLICT DO NOTHING`;
  }

  /** The values of `insertSql`'s parameters for these objects. */
  static insertValues(items: readonly WorldObject[]): ObjectValues {
    const values: ObjectValues = {};
    items.forEach((o, i) => {
      values[`object${i}.ref`] = o.hash;
      values[`object${i}.semanticId`] = o.semanticId;
      values[`object${i}.provenance`] = o.provenance;
      values[`object${i}.payload`] = o.payload;
    });
    return values;
  }
}

/** The parameter names of `insertSql`: four per object. */
export type ObjectKey = `object${number}.${'ref' | 'semanticId' | 'provenance' | 'payload'}`;

/** The values of `insertSql`'s parameters, by name. */
export type ObjectValues = { [K in ObjectKey]?: unknown };
