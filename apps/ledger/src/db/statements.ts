/**
 * Helpers shared by the repositories: the transaction type, ref validation at the write path,
 * and the execution of several writes as one statement (fewer round trips per commit).
 */
import { sql, type SQL } from 'drizzle-orm';
import { parseRef, type Ref } from '@world/canonical';
import type { Database } from '@world/runtime';
import { POSTGRES_MAX_BIND_PARAMETERS } from '../constants.js';

/** A transaction handle (drizzle's PgTransaction); inside a transaction use only this. */
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Something queries run on: the database or a transaction. */
export type Queryable = Database | Tx;

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

/** One write and an upper bound of the bind parameters it carries. */
export interface Write {
  sql: SQL;
  params: number;
}

/**
 * Splits rows into chunks that fit one statement given the parameters each row carries.
 * @param reserve parameters kept free for the other writes sharing the statement
 * @param cap the statement's bind-parameter cap (PostgreSQL's by default)
 */
export function chunkRows<T>(
  rows: T[],
  paramsPerRow: number,
  reserve: number,
  cap = POSTGRES_MAX_BIND_PARAMETERS,
): T[][] {
  const size = Math.max(1, Math.floor((cap - reserve) / paramsPerRow));
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

/**
 * Groups consecutive writes, in order, so each group's parameters stay within the cap (a write
 * larger than the cap gets a group of its own).
 */
export function groupWrites<W extends { params: number }>(
  writes: W[],
  cap = POSTGRES_MAX_BIND_PARAMETERS,
): W[][] {
  const groups: W[][] = [];
  let current: W[] = [];
  let params = 0;
  for (const write of writes) {
    if (current.length > 0 && params + write.params > cap) {
      groups.push(current);
      current = [];
      params = 0;
    }
    current.push(write);
    params += write.params;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Runs writes in order with as few statements as the bind-parameter cap allows: each group of
 * groupWrites becomes one statement whose writes but the last are data-modifying CTEs
 * (`WITH w0 AS (…), w1 AS (…) last`). Foreign keys are checked at the end of each statement, so
 * a row and the rows that reference it may share a statement.
 * @returns the rows the last write returned (its RETURNING clause), or [] when it has none
 */
export async function runWrites(
  tx: Tx,
  writes: Write[],
  cap = POSTGRES_MAX_BIND_PARAMETERS,
): Promise<Record<string, unknown>[]> {
  let rows: Record<string, unknown>[] = [];
  for (const group of groupWrites(writes, cap)) {
    const last = group[group.length - 1]!;
    const ctes = group.slice(0, -1).map((w, i) => sql`${sql.raw(`w${i}`)} AS (${w.sql})`);
    const statement =
      ctes.length === 0 ? last.sql : sql`WITH ${sql.join(ctes, sql`, `)} ${last.sql}`;
    const result = (await tx.execute(statement)) as unknown as { rows: Record<string, unknown>[] };
    rows = result.rows;
  }
  return rows;
}
