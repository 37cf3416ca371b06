import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { entryHash, worldRef } from '@world/canonical';
import {
  connectRpc,
  openPostgres,
  type DatabaseHandle,
  type RpcClient,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import {
  createTestDatabase,
  eventually,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
} from '@world/testing';
import { startLedger } from '../../src/index.js';
import { genesis } from '../../src/genesis/genesis.js';
import { LEDGER_MIGRATIONS_FOLDER, LEDGER_MIGRATIONS_TABLE } from '../../src/constants.js';
import {
  commitObjects,
  heads,
  logEntries,
  objects,
  registryHeads,
  worlds,
} from '../../src/db/schema.js';
import { RPC_TIMEOUT_MS, toolCall } from '../support.js';

/** Commits sent through the queue group while both replicas serve: 4 clients × 10. */
const CLIENTS = 4;
const COMMITS_PER_CLIENT = 10;

const opts = { timeoutMs: RPC_TIMEOUT_MS };

describe('two ledger replicas on one fresh PostgreSQL database', () => {
  let tdb: TestDatabase;
  let handles: DatabaseHandle[];
  let replicas: RunningService[];
  let client: RpcClient;
  let transport: TransportConfig;
  let keyDir: string;

  beforeAll(async () => {
    // Replicas of one log sign with one key (as world up's WORLD_HOME/log.key or the compose
    // secret gives them); the first to start creates the file, the other reads it.
    keyDir = mkdtempSync(join(tmpdir(), 'ledger-replicas-key-'));
    const logKey = { file: join(keyDir, 'log.key') };
    tdb = await createTestDatabase('ledger_replicas');
    handles = [await openPostgres(tdb.url), await openPostgres(tdb.url)];
    transport = { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('ledger-replicas') };
    // Started at the same moment: both migrate and bootstrap concurrently.
    replicas = await Promise.all(
      handles.map((database, i) =>
        startLedger({ transport, database, replica: `ledger-r${i + 1}`, logKey }),
      ),
    );
    client = await connectRpc(transport, 'ledger-replicas-client');
  });

  afterAll(async () => {
    await client?.close();
    for (const r of replicas ?? []) await r.close();
    for (const h of handles ?? []) await h.close();
    await tdb?.drop();
    if (keyDir !== undefined) rmSync(keyDir, { recursive: true, force: true });
  });

  it('both come up and serve in one queue group', async () => {
    const seen = new Set<string>();
    await eventually(
      async () => {
        seen.add((await client.request('ledger.health', {}, opts)).replica);
        return seen.size === 2 ? true : undefined;
      },
      10_000,
      'both replicas to answer',
    );
    expect([...seen].sort()).toEqual(['ledger-r1', 'ledger-r2']);
  });

  it('create exactly one genesis and apply the migrations once', async () => {
    const db = handles[0]!.db;
    const total = async (table: PgTable) => (await db.select({ n: count() }).from(table))[0]!.n;
    expect(await total(logEntries)).toBe(1);
    expect(await total(worlds)).toBe(1);
    expect(await total(heads)).toBe(1);
    expect(await total(objects)).toBe(2);
    expect(await total(commitObjects)).toBe(1);
    expect(await total(registryHeads)).toBe(1);
    const applied = await db.execute(
      sql.raw(`SELECT count(*)::int AS n FROM drizzle."${LEDGER_MIGRATIONS_TABLE}"`),
    );
    // Each migration of the journal applied exactly once, whichever replica got there first.
    const journal = JSON.parse(
      readFileSync(join(LEDGER_MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
    ) as { entries: unknown[] };
    expect((applied as unknown as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(
      journal.entries.length,
    );
    await expect(client.request('ledger.head', {}, opts)).resolves.toEqual({
      worldRef: genesis().world.ref,
      world: genesis().world,
      entryIndex: 0,
    });
  });

  it('append densely and hash-linked when commits are shared between the replicas', async () => {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        for (let n = 0; n < COMMITS_PER_CLIENT; n++) {
          await client.request(
            'ledger.commit',
            toolCall(`mcp:replicas${i}:t${n}`, { i, n }).request,
            opts,
          );
        }
      }),
    );
    const { items } = await client.request('ledger.log.range', { from: 0, limit: 100 }, opts);
    expect(items.map((e) => e.header.entryIndex)).toEqual(
      Array.from({ length: 1 + CLIENTS * COMMITS_PER_CLIENT }, (_, i) => i),
    );
    items.forEach((entry, i) => {
      expect(entryHash(entry.header, entry.transitionRef)).toBe(entry.entryHash);
      if (i > 0) expect(entry.header.prevEntryHash).toBe(items[i - 1]!.entryHash);
    });
    const head = await client.request('ledger.head', {}, opts);
    expect(head.entryIndex).toBe(CLIENTS * COMMITS_PER_CLIENT);
    expect(worldRef(head.world!)).toBe(head.worldRef);
    expect(head.world!.logHead).toBe(items[items.length - 1]!.entryHash);
  });
});
