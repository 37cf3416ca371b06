import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { RequestOf } from '@world/contracts';
import {
  connectRpc,
  openPostgres,
  type DatabaseHandle,
  type RpcClient,
  type TransportConfig,
} from '@world/runtime';
import { createTestDatabase, testNatsUrl, uniquePrefix } from '@world/testing';
import { startBroker, type BrokerOptions, type RunningBroker } from '../../src/boot.js';
import { effectRequestObject } from '../../src/effects/effect-objects.js';
import type { EffectStart } from '../../src/effects/effect-start.js';

/**
 * The run mode the integration suites cover: NATS and real PostgreSQL, once (DESIGN.md §5: embedded
 * World runs on PostgreSQL too; its in-process bus is covered by apps/cli's e2e suites).
 */
export const MODES: Array<[string, 'nats']> = [['NATS and PostgreSQL', 'nats']];

/** A booted broker with a client, its database and its directories. */
export interface Harness {
  broker: RunningBroker;
  rpc: RpcClient;
  database: DatabaseHandle;
  /** the database's connection string, for a second connection of a test's own */
  databaseUrl: string;
  transport: TransportConfig;
  worldHome: string;
  workspaceRoot: string;
  /** rows of a raw SQL query */
  rows<T = Record<string, unknown>>(text: string): Promise<T[]>;
  /** row counts of the broker's effect tables */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Long enough for any request of these suites, including lease waits. */
export const RPC_TIMEOUT_MS = 30_000;

/** Starts a broker (real PostgreSQL + NATS) in fresh directories. */
export async function startHarness(
  mode: 'nats',
  options: Pick<BrokerOptions, 'handlers' | 'workspaceRoot'> = {},
): Promise<Harness> {
  const worldHome = await realpath(await mkdtemp(join(tmpdir(), 'broker-it-')));
  const testDb = await createTestDatabase('broker');
  const database = await openPostgres(testDb.url, { max: 12 });
  const transport: TransportConfig = {
    kind: 'nats',
    url: testNatsUrl(),
    prefix: uniquePrefix('broker'),
  };
  const drop = () => testDb.drop();
  const broker = await startBroker({
    transport,
    database,
    worldHome,
    replica: `it-${mode}`,
    ...options,
  });
  const rpc = await connectRpc(transport, 'broker-test');
  const rows = async <T>(text: string): Promise<T[]> => {
    const result = (await database.db.execute(sql.raw(text))) as unknown as { rows: T[] };
    return result.rows;
  };
  return {
    broker,
    rpc,
    database,
    databaseUrl: testDb.url,
    transport,
    worldHome,
    workspaceRoot: broker.settings.workspaceRoot,
    rows,
    async counts() {
      const out: Record<string, number> = {};
      for (const table of [
        'objects',
        'effect_records',
        'effect_intents',
        'effect_outcomes',
        'spend',
      ]) {
        const [row] = await rows<{ n: string | number }>(
          `SELECT count(*) AS n FROM broker.${table}`,
        );
        out[table] = Number(row!.n);
      }
      const [spent] = await rows<{ s: string | number | null }>(
        'SELECT coalesce(sum(spent), 0) AS s FROM broker.spend',
      );
      out.spent = Number(spent!.s);
      return out;
    },
    async close() {
      await rpc.close();
      await broker.close();
      await database.close();
      await drop();
      await rm(worldHome, { recursive: true, force: true });
    },
  };
}

/** An execute request for a workspace effect, with overrides. */
export function executeRequest(
  over: Partial<Omit<RequestOf<'broker.effect.execute'>, 'effect'>> & {
    effect?: Partial<RequestOf<'broker.effect.execute'>['effect']>;
  },
): RequestOf<'broker.effect.execute'> {
  const { effect, ...rest } = over;
  return {
    invocationId: 'mcp:ep:t1',
    credentialId: '0'.repeat(64),
    episodeId: 'ep',
    now: Date.now(),
    handlerMs: 10_000,
    ...rest,
    effect: {
      id: 'e1',
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      payload: { op: 'read', path: 'a.txt' },
      ...effect,
    },
  };
}

/**
 * An allowed start of a 1-unit `Workspace.Read` of a.txt, as ExecuteEffect's decision builds it
 * (request object at logical time `now`), for tests that drive EffectsRepository directly.
 */
export function allowedRead(
  invocationId: string,
  now: number,
): Extract<EffectStart, { kind: 'allowed' }> {
  const request = effectRequestObject({
    effect: 'Workspace.Read',
    scope: 'worktree',
    cost: 1,
    now,
    payload: { op: 'read', path: 'a.txt' },
  });
  return {
    kind: 'allowed',
    objects: [request],
    intent: {
      invocationId,
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      requestRef: request.hash,
      logicalTime: now,
    },
  };
}
