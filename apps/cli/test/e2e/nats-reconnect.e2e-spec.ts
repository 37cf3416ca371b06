/**
 * A NATS server restarted under a running World with a smaller max_payload (DESIGN.md §1 "an
 * effect whose commit could not fit on the bus never runs"). World starts on a
 * server configured like the deployment (8 MiB); the server is then restarted on the same port
 * with NATS's default 1 MiB and every connection reconnects to it. Writes of 300, 400 and 700 KB
 * — whose commits cannot fit 1 MiB — are refused before anything runs (the host error; no file,
 * no intent, no spend, no log entry), never run and then lost from the log. Back on an 8 MiB
 * server, the same 700 KB write commits.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startBroker } from '@world/broker';
import { startGateway } from '@world/gateway';
import { startLedger } from '@world/ledger';
import { startPlanner } from '@world/planner';
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
  startNatsServer,
  uniquePrefix,
  type TestDatabase,
  type TestNatsServer,
} from '@world/testing';

/** The deployment's NATS configuration (max_payload 8 MiB). */
const NATS_CONF = fileURLToPath(new URL('../../../../infra/nats/nats.conf', import.meta.url));
const SIZES = [300_000, 400_000, 700_000];

describe('a NATS server restarted with a max_payload too small for a commit', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let database: DatabaseHandle;
  let home: string;
  let transport: TransportConfig;
  let rpc: RpcClient;
  const services: RunningService[] = [];
  let url: string;
  let token: string;
  let worktree: string;

  beforeAll(async () => {
    nats = await startNatsServer(['-c', NATS_CONF]);
    db = await createTestDatabase('reconnect');
    database = await openPostgres(db.url);
    home = await mkdtemp(join(tmpdir(), 'world-reconnect-'));
    transport = { kind: 'nats', url: nats.url, prefix: uniquePrefix('reconnect') };
    services.push(await startLedger({ transport, database }));
    services.push(
      await startBroker({
        transport,
        database,
        worldHome: join(home, 'home'),
        workspaceRoot: join(home, 'ws'),
      }),
    );
    services.push(await startPlanner({ transport }));
    const gateway = await startGateway({
      transport,
      bind: '127.0.0.1:0',
      worldHome: join(home, 'home'),
    });
    services.push(gateway);
    url = gateway.url;
    rpc = await connectRpc(transport, 'reconnect-test');
    const src = await mkdtemp(join(tmpdir(), 'world-reconnect-src-'));
    ({ worktree } = await rpc.request(
      'broker.episode.create',
      { episodeId: 'ep1', source: { kind: 'copy', dir: src } },
      { timeoutMs: 10_000 },
    ));
    await rm(src, { recursive: true, force: true });
    ({ token } = await rpc.request(
      'broker.session.mint',
      {
        episodeId: 'ep1',
        grants: [{ effect: 'Workspace.Write', scope: 'worktree', budget: 10 }],
        ttlSeconds: 600,
      },
      { timeoutMs: 10_000 },
    ));
  }, 60_000);

  afterAll(async () => {
    await rpc?.close();
    for (const s of services.reverse()) await s.close();
    await database?.close();
    await db?.drop();
    await nats?.stop();
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  /** tools/call ailang-write over MCP: the JSON-RPC result's structured content, or its error. */
  const write = async (path: string, bytes: number) => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ailang-write', arguments: { path, content: 'a'.repeat(bytes) } },
      }),
    });
    const text = await res.text();
    const line = text.split('\n').find((l) => l.startsWith('data: '));
    const body = JSON.parse(line === undefined ? text : line.slice(6)) as {
      result?: { structuredContent: { ok?: boolean } };
      error?: { code: number; message: string };
    };
    return body.error ?? { ok: body.result?.structuredContent.ok };
  };
  const rows = async (sql: string) => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  const counts = async () => ({
    intents: Number((await rows('SELECT count(*) AS n FROM broker.effect_intents'))[0].n),
    entries: Number((await rows('SELECT count(*) AS n FROM ledger.log_entries'))[0].n),
  });
  /** Restarts NATS on its port and waits until every service and the gateway answer on it. */
  const restartNats = async (args: string[]) => {
    await nats.stop();
    nats = await startNatsServer(args, nats.port);
    for (const subject of ['ledger.health', 'broker.health', 'planner.health'] as const)
      await eventually(
        () => rpc.request(subject, {}, { timeoutMs: 1_000 }).then(() => true),
        30_000,
        `${subject} after the NATS restart`,
      );
    await eventually(
      async () =>
        (await fetch(`${url}/v1/head`, { headers: { authorization: `Bearer ${token}` } }))
          .status === 200
          ? true
          : undefined,
      30_000,
      'the gateway after the NATS restart',
    );
  };

  it('refuses 300, 400 and 700 KB writes before running them, and commits again on an 8 MiB server', async () => {
    expect(await write('small.txt', 10)).toEqual({ ok: true });
    const before = await counts();
    expect(before).toEqual({ intents: 1, entries: 2 });

    await restartNats([]);
    const answers = [];
    for (const bytes of SIZES) answers.push(await write(`big-${bytes}.txt`, bytes));
    expect(answers).toEqual(SIZES.map(() => ({ code: -32603, message: 'host callback failed' })));
    // Nothing ran: no file, no intent, no spend, no entry.
    expect(SIZES.map((b) => existsSync(join(worktree, `big-${b}.txt`)))).toEqual(
      SIZES.map(() => false),
    );
    expect(await counts()).toEqual(before);
    expect(await rows('SELECT sum(spent)::int AS spent FROM broker.spend')).toEqual([{ spent: 1 }]);

    await restartNats(['-c', NATS_CONF]);
    expect(await write('big-700000.txt', 700_000)).toEqual({ ok: true });
    expect((await readFile(join(worktree, 'big-700000.txt'), 'utf8')).length).toBe(700_000);
    expect(await counts()).toEqual({ intents: 2, entries: 3 });
  }, 120_000);
});
