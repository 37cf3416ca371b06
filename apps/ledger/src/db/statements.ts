/**
 * What the ledger's repositories share about statements: ref validation at the write path,
 * parameters numbered by name, and the inserts more than one repository writes — objects
 * (commit, registry publish, genesis) and Merkle tree nodes (commit, tree bootstrap) — each
 * written once here. Pure: no I/O. The column names follow db/schema.ts.
 */
import { parseRef, type Ref, type WorldObject } from '@world/canonical';
import type { Database } from '@world/runtime';

/** A transaction handle (drizzle's PgTransaction); inside a transaction use only this. */
type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
/** Something drizzle queries run on: the database or a transaction. */
export type Queryable = Database | Tx;

/** A named statement: PostgreSQL prepares it once per connection. */
export interface NamedStatement {
  name: string;
  text: string;
}

/**
 * Validates every ref a write is about to persist (world-internals §4 and §12 incident 1: a zero
 * or malformed ref is never written).
 * @param refs field name → ref text
 * @throws InvalidRefError naming the field
 */
export function assertRefs(refs: Record<string, string>): void {
  for (const [field, value] of Object.entries(refs)) parseRef(value, field);
}

/** Narrows a stored ref column to the Ref type (every ref was validated when written). */
export function storedRef(value: string): Ref {
  return value as Ref;
}

/**
 * The numbered parameters of a statement, by name: a statement's text names each parameter by
 * its placeholder (`$n::type`) and its values are laid out from a record, so no offset is
 * counted by hand.
 */
export class Params<N extends string> {
  private readonly numbers = new Map<N, number>();

  /** @param types each parameter's PostgreSQL type, in placeholder order ($1 first) */
  constructor(private readonly types: ReadonlyArray<readonly [N, string]>) {
    types.forEach(([name], i) => this.numbers.set(name, i + 1));
  }

  /** The typed placeholder of a parameter: `$n::type`. */
  $(name: N): string {
    const n = this.numbers.get(name)!;
    return `$${n}::${this.types[n - 1]![1]}`;
  }

  /**
   * How many leading parameters `text` takes: the highest it names. PostgreSQL cannot type a
   * parameter a statement does not name, so the named ones must be exactly $1…$n.
   * @throws Error when `text` skips one (a statement bug)
   */
  countIn(text: string): number {
    const named = new Set([...text.matchAll(/\$(\d+)::/g)].map((m) => Number(m[1])));
    const count = Math.max(0, ...named);
    for (let n = 1; n <= count; n++)
      if (!named.has(n)) throw new Error(`statement names $${count} but not $${n}`);
    return count;
  }

  /**
   * The values of the first `count` parameters, in placeholder order.
   * @throws Error when one of them has no value (a caller bug)
   */
  values(values: Partial<Record<N, unknown>>, count = this.types.length): unknown[] {
    return this.types.slice(0, count).map(([name]) => {
      if (!(name in values)) throw new Error(`statement parameter ${name} has no value`);
      return values[name];
    });
  }
}

/** The start of a FROM list joined with `gate` (`hd, `), or nothing without one. */
export function joined(gate: string | undefined): string {
  return gate === undefined ? '' : `${gate}, `;
}

/** The placeholders of five parallel arrays of objects (objectColumns). */
export interface ObjectArrays {
  hashes: string;
  interfaceHashes: string;
  semanticIds: string;
  provenances: string;
  payloads: string;
}

/**
 * The one insert of content-addressed objects, from five parallel arrays (unnest: one text for
 * any object count, never near PostgreSQL's bind-parameter cap). An object already stored keeps
 * its row: first provenance wins (world-spec §2.13).
 * @param p the arrays' typed placeholders (text[] ×4, bytea[])
 * @param gate a FROM item each row is joined with (`hd`: written only when the CTE `hd` returned
 *   a row), or none
 */
export function insertObjects(p: ObjectArrays, gate?: string): string {
  const arrays = [p.hashes, p.interfaceHashes, p.semanticIds, p.provenances, p.payloads];
  return `INSERT INTO ledger.objects (hash, interface_hash, semantic_id, provenance, payload)
  SELECT u.hash, u.interface_hash, u.semantic_id, u.provenance, u.payload
    FROM ${joined(gate)}unnest(${arrays.join(', ')})
      AS u(hash, interface_hash, semantic_id, provenance, payload)
  ON CONFLICT DO NOTHING`;
}

/**
 * The values of insertObjects' five arrays, every ref validated first.
 * @param field the name of object i in an error (`objects[i]`, `object`)
 * @throws InvalidRefError naming `<field>.hash` or `<field>.interfaceHash`
 */
export function objectColumns(
  objects: readonly WorldObject[],
  field: (i: number) => string = (i) => `objects[${i}]`,
): Record<keyof ObjectArrays, unknown[]> {
  objects.forEach((o, i) =>
    assertRefs({ [`${field(i)}.hash`]: o.hash, [`${field(i)}.interfaceHash`]: o.interfaceHash }),
  );
  return {
    hashes: objects.map((o) => o.hash),
    interfaceHashes: objects.map((o) => o.interfaceHash),
    semanticIds: objects.map((o) => o.semanticId),
    provenances: objects.map((o) => o.provenance),
    payloads: objects.map((o) => o.payload),
  };
}

/** The parameters of INSERT_OBJECTS: the five arrays of objectColumns. */
const OBJECT_PARAMS = new Params([
  ['hashes', 'text[]'],
  ['interfaceHashes', 'text[]'],
  ['semanticIds', 'text[]'],
  ['provenances', 'text[]'],
  ['payloads', 'bytea[]'],
] as const);

/** The objects insert as a statement of its own (registry publish, genesis). */
export const INSERT_OBJECTS = insertObjects({
  hashes: OBJECT_PARAMS.$('hashes'),
  interfaceHashes: OBJECT_PARAMS.$('interfaceHashes'),
  semanticIds: OBJECT_PARAMS.$('semanticIds'),
  provenances: OBJECT_PARAMS.$('provenances'),
  payloads: OBJECT_PARAMS.$('payloads'),
});

/**
 * The parameters of INSERT_OBJECTS, every ref validated first (objectColumns).
 * @throws InvalidRefError naming `<field>.hash` or `<field>.interfaceHash`
 */
export function insertObjectsParams(
  objects: readonly WorldObject[],
  field?: (i: number) => string,
): unknown[] {
  return OBJECT_PARAMS.values(objectColumns(objects, field));
}

/**
 * The one insert of Merkle tree nodes (commit/tree.ts extendTree's rows), from three parallel
 * arrays.
 * @param p the arrays' typed placeholders (smallint[], bigint[], bytea[])
 * @param gate as insertObjects
 */
export function insertTreeNodes(
  p: { levels: string; indexes: string; hashes: string },
  gate?: string,
): string {
  return `INSERT INTO ledger.tree_nodes (level, node_index, hash)
  SELECT u.level, u.node_index, u.hash
    FROM ${joined(gate)}unnest(${p.levels}, ${p.indexes}, ${p.hashes})
      AS u(level, node_index, hash)`;
}
