/**
 * The ledger's start-up integrity scan on a real process (world-spec §2.18; DESIGN.md §3 "Each
 * owner scans its hashed data at start"): a clean log is reported clean and logs nothing; after a
 * byte of a stored object and a field of an entry are changed in PostgreSQL itself, the next
 * start names both on the operator log (`integrity_hole`) and in `GET /readyz`, newest first,
 * and keeps serving.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { entryHash, refOf, type LogEntry } from '@world/canonical';
import type { IntegrityReport } from '@world/contracts';
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
import { toolCall } from '../support.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const READY = /"msg":"ready"/;
const opts = { timeoutMs: 10_000 };

describe('the ledger process’s start-up integrity scan (world-spec §2.18)', () => {
  let tdb: TestDatabase;
  let prefix: string;
  let client: RpcClient;
  const running: TestProcess[] = [];

  /** Starts a ledger process and answers it with its health port. */
  const start = async (): Promise<{ child: TestProcess; port: number }> => {
    const child = startNode(MAIN, [], {
      DATABASE_URL: tdb.url,
      NATS_URL: testNatsUrl(),
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_LOG_LEVEL: 'info',
      WORLD_HEALTH_PORT: '0',
      WORLD_CRASHPOINT: undefined,
    });
    running.push(child);
    const ready = JSON.parse(await child.waitForLine(READY)) as { healthPort: number };
    return { child, port: ready.healthPort };
  };
  /** GET /readyz once the scan has ended. */
  const readyz = (port: number) =>
    eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await res.json()) as { integrity: { ledger: IntegrityReport } };
      if (body.integrity.ledger.state === 'scanning') throw new Error('still scanning');
      return [res.status, body] as const;
    });
  const stop = async ({ child }: { child: TestProcess }) => {
    child.kill('SIGTERM');
    await expect(child.exited).resolves.toEqual({ code: 0, signal: null });
  };

  beforeAll(async () => {
    if (!existsSync(MAIN))
      throw new Error(
        `${MAIN} is missing: build first (pnpm exec turbo run build --filter=@world/ledger...)`,
      );
    tdb = await createTestDatabase('ledger_integrity');
    prefix = uniquePrefix('ledger-integrity');
    client = await connectRpc({ kind: 'nats', url: testNatsUrl(), prefix }, 'ledger-integrity');
  });
  afterAll(async () => {
    await client?.close();
    for (const p of running) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.kill('SIGKILL');
        await p.exited;
      }
    }
    await tdb?.drop();
  });

  /** The problems a process logged as `integrity_hole`, in order. */
  const holes = (p: TestProcess) =>
    p.lines
      .filter((l) => l.includes('"msg":"integrity_hole"'))
      .map((l) => (JSON.parse(l) as { problem: string }).problem);

  it('reports a clean log clean, then names an altered object byte and an altered entry field on the next start', async () => {
    const first = await start();
    // The scan ran at start: the genesis entry, the genesis object it carries, the epoch registry.
    expect(await readyz(first.port)).toEqual([
      200,
      {
        status: 'ready',
        checks: { database: 'ok', nats: 'ok' },
        integrity: {
          ledger: { state: 'clean', scanned: 3, mismatches: 0, problems: [], complete: true },
        },
      },
    ]);
    const calls = [1, 2, 3].map((n) =>
      toolCall(`mcp:ep-scan:t${n}`, { path: `f${n}.txt` }, { ok: true, n }),
    );
    const replies = [];
    for (const call of calls)
      replies.push(await client.request('ledger.commit', call.request, opts));
    await stop(first);
    expect(holes(first.child)).toEqual([]);

    // Alter one byte of call 1's input and one header field of call 2's entry, in PostgreSQL.
    const sql = new pg.Client({ connectionString: tdb.url });
    await sql.connect();
    let altered: Buffer;
    try {
      const { rows } = await sql.query<{ payload: Buffer }>(
        'UPDATE ledger.objects SET payload = set_byte(payload, 2, 80) WHERE hash = $1 RETURNING payload',
        [calls[0]!.input.hash],
      );
      altered = rows[0]!.payload;
      await sql.query(
        `UPDATE ledger.log_entries SET written_by = 'coordinator:a2a' WHERE entry_index = $1`,
        [replies[1]!.entryIndex],
      );
    } finally {
      await sql.end();
    }
    const { request } = calls[1]!;
    const header = {
      entryIndex: replies[1]!.entryIndex,
      semanticsEpoch: request.semanticsEpoch,
      transitionFn: request.transitionFn,
      interpreter: request.interpreter,
      prevEntryHash: replies[1]!.prevEntryHash,
      writtenBy: 'coordinator:a2a',
    } as LogEntry['header'];
    const problems = [
      `log entry ${header.entryIndex} (${replies[1]!.entryHash}) has fields that hash to ${entryHash(header, request.transitionRef as LogEntry['transitionRef'])}`,
      `object ${calls[0]!.input.hash} has bytes that hash to ${refOf(altered)}`,
    ];

    const second = await start();
    // 4 entries, the 10 objects they carry (genesis + 3 × input, output, record), the epoch
    // registry; newest first, so the entry's problem comes before the object's.
    expect(await readyz(second.port)).toEqual([
      200,
      {
        status: 'ready',
        checks: { database: 'ok', nats: 'ok' },
        integrity: {
          ledger: { state: 'mismatch', scanned: 15, mismatches: 2, problems, complete: true },
        },
      },
    ]);
    expect(holes(second.child)).toEqual(problems);
    // It keeps serving: the unaltered head still answers.
    await expect(client.request('ledger.head', {}, opts)).resolves.toMatchObject({
      worldRef: replies[2]!.worldRef,
    });
  });
});
