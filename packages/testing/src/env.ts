import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';

/**
 * The NATS server tests run against: WORLD_TEST_NATS_URL (set by `pnpm test`, which starts a
 * server configured like the deployment, max_payload 8 MiB), else NATS_URL, else the machine's.
 */
export function testNatsUrl(): string {
  return process.env.WORLD_TEST_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** The PostgreSQL server tests create their databases on (an admin connection string). */
function testPostgresAdminUrl(): string {
  return process.env.WORLD_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** A fresh subject prefix, so concurrent test runs never see each other's messages. */
export function uniquePrefix(label = 't'): string {
  return `${label.replace(/[^A-Za-z0-9_-]/g, '-')}-${randomBytes(6).toString('hex')}`;
}

/** A fresh database on the test server; `drop()` removes it (forcing out stray connections). */
export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty database for one test file (CONVENTIONS.md: one schema or database per test file).
 */
export async function createTestDatabase(label = 'world'): Promise<TestDatabase> {
  const admin = testPostgresAdminUrl();
  const name = `wt_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
