import type pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';

/** Advisory lock key every service's migrations take (ASCII "wrld"). */
const WORLD_MIGRATION_LOCK_KEY = 0x77726c64;

/** Where a service's migrations live and how they are journaled. */
export interface MigrationOptions {
  /** the folder drizzle-kit generated (apps/<service>/drizzle) */
  folder: string;
  /** the journal table in schema `drizzle`, one per service (`__drizzle_migrations_<service>`) */
  table: string;
  /**
   * the service's advisory lock key; migrations also take WORLD_MIGRATION_LOCK_KEY, shared by every
   * service, because each service's first migration creates the shared `drizzle` schema and two
   * concurrent `CREATE SCHEMA IF NOT EXISTS` collide (ecosystem §3.2)
   */
  lockKey: number;
}

/**
 * Applies a service's committed drizzle-kit migrations on one connection of the pool, holding
 * WORLD_MIGRATION_LOCK_KEY and then the service's own key, so concurrent starts of any services
 * apply each migration once (ecosystem §3.2). Both locks are released however the run ends.
 * @throws the first failing migration's error (its transaction rolled back by drizzle)
 */
export async function migrateUnderLock(pool: pg.Pool, m: MigrationOptions): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [WORLD_MIGRATION_LOCK_KEY]);
    await client.query('SELECT pg_advisory_lock($1)', [m.lockKey]);
    try {
      await migratePg(drizzlePg(client), {
        migrationsFolder: m.folder,
        migrationsTable: m.table,
      });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [m.lockKey]);
      await client.query('SELECT pg_advisory_unlock($1)', [WORLD_MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
