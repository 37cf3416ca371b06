/**
 * The broker's start-up integrity scan on a real process (world-spec §2.18; DESIGN.md §3 "Each
 * owner scans its hashed data at start"): after a byte of a stored effect request and a column of
 * an effect record's row are changed in PostgreSQL itself, the next start names both, newest
 * first, on the operator log (`integrity_hole`) and in `GET /readyz`, and keeps serving.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { refOf } from '@world/canonical';
import type { EffectRecord, IntegrityReport } from '@world/contracts';
import { connectRpc, type RpcClient } from '@world/runtime';
import {
  createTestDatabase,
  eventually,
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
  type TestProcess,
} from '@world/testing';
import { effectRecordObject } from '../../src/effects/effect-objects.js';
import { executeRequest } from '../support/harness.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const opts = { timeoutMs: 20_000 };

describe('the broker process’s start-up integrity scan (world-spec §2.18)', () => {
  let db: TestDatabase;
  let home: string;
  let rpc: RpcClient;
  const prefix = uniquePrefix('broker-integrity');
  const processes: TestProcess[] = [];

  const start = async (replica: string) => {
    const child = startNode(MAIN, [], {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: db.url,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: home,
      WORLD_REPLICA: replica,
      WORLD_LOG_LEVEL: 'info',
      WORLD_HEALTH_PORT: '0',
      WORLD_CRASHPOINT: '',
    });
    processes.push(child);
    const ready = JSON.parse(await child.waitForLine(/"msg":"ready"/)) as { healthPort: number };
    return { child, port: ready.healthPort };
  };
  const readyz = (port: number) =>
    eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await res.json()) as { integrity: { broker: IntegrityReport } };
      if (body.integrity.broker.state === 'scanning') throw new Error('still scanning');
      return [res.status, body] as const;
    });
  const holes = (p: TestProcess) =>
    p.lines
      .filter((l) => l.includes('"msg":"integrity_hole"'))
      .map((l) => (JSON.parse(l) as { problem: string }).problem);

  beforeAll(async () => {
    if (!existsSync(MAIN))
      throw new Error(
        `${MAIN} is missing: build first (pnpm exec turbo run build --filter=@world/broker...)`,
      );
    db = await createTestDatabase('broker_integrity');
    home = await realpath(await mkdtemp(join(tmpdir(), 'broker-integrity-')));
    rpc = await connectRpc({ kind: 'nats', url: testNatsUrl(), prefix }, 'integrity-test');
  });
  afterAll(async () => {
    for (const child of processes) {
      if (child.child.exitCode === null && child.child.signalCode === null) {
        child.kill('SIGKILL');
        await child.exited;
      }
    }
    await rpc?.close();
    await db?.drop();
    await rm(home, { recursive: true, force: true });
  });

  it('names an altered request byte and an altered record row on the next start, newest first', async () => {
    const first = await start('integrity-1');
    expect(await readyz(first.port)).toEqual([
      200,
      {
        status: 'ready',
        checks: { database: 'ok', nats: 'ok' },
        integrity: {
          broker: { state: 'clean', scanned: 0, mismatches: 0, problems: [], complete: true },
        },
      },
    ]);
    const { worktree } = await rpc.request(
      'broker.episode.create',
      { episodeId: 'scan', source: { kind: 'empty' } },
      opts,
    );
    await writeFile(join(worktree, 'a.txt'), 'text\n');
    const session = await rpc.request(
      'broker.session.mint',
      {
        episodeId: 'scan',
        grants: [{ effect: 'Workspace.Read', scope: 'worktree', budget: 5 }],
        ttlSeconds: 3600,
      },
      opts,
    );
    // An allowed read (request, result, record), then a denied write (request, record).
    const execute = async (invocationId: string, effect: Record<string, unknown>) => {
      const reply = await rpc.request(
        'broker.effect.execute',
        executeRequest({
          invocationId,
          credentialId: session.credentialId,
          episodeId: 'scan',
          acquire: { holder: 'planner-1', ttlMs: 60_000, waitMs: 5_000 },
          effect,
        }),
        opts,
      );
      await rpc.request(
        'broker.episode.release',
        { episodeId: 'scan', holder: 'planner-1', fence: reply.fence },
        opts,
      );
      return reply;
    };
    const read = await execute('mcp:scan:t1', {});
    const denied = await execute('mcp:scan:t2', {
      effect: 'Workspace.Write',
      payload: { op: 'write', path: 'a.txt', content: 'x\n' },
    });
    expect([read.status, denied.status]).toEqual(['ok', 'denied']);
    first.child.kill('SIGTERM');
    await expect(first.child.exited).resolves.toEqual({ code: 0, signal: null });
    expect(holes(first.child)).toEqual([]);

    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    let altered: Buffer;
    try {
      const { rows } = await sql.query<{ payload: Buffer }>(
        'UPDATE broker.objects SET payload = set_byte(payload, 2, 81) WHERE ref = $1 RETURNING payload',
        [read.record.requestRef],
      );
      altered = rows[0]!.payload;
      await sql.query(`UPDATE broker.effect_records SET scope = 'elsewhere' WHERE ref = $1`, [
        denied.recordRef,
      ]);
    } finally {
      await sql.end();
    }
    const rowRecord = effectRecordObject({
      ...(denied.record as EffectRecord),
      scope: 'elsewhere',
    });
    const problems = [
      `effect record ${denied.recordRef} differs from its effect_records row (which hashes to ${rowRecord.hash})`,
      `object ${read.record.requestRef} has bytes that hash to ${refOf(altered)}`,
    ];

    const second = await start('integrity-2');
    expect(await readyz(second.port)).toEqual([
      200,
      {
        status: 'ready',
        checks: { database: 'ok', nats: 'ok' },
        integrity: {
          broker: { state: 'mismatch', scanned: 5, mismatches: 2, problems, complete: true },
        },
      },
    ]);
    expect(holes(second.child)).toEqual(problems);
  });
});
