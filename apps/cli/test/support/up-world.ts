/**
 * A `world up` World for exactly-once tests: every service a real process on the test PostgreSQL
 * and NATS (fresh database and subject prefix), one SQL client to hold locks and read rows, one
 * bus client, and A2A / MCP senders speaking to either gateway.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { READ_ALL, type Grant } from '@world/contracts';
import { connectRpc, type RpcClient } from '@world/runtime';
import { createTestDatabase, eventually, testNatsUrl, uniquePrefix } from '@world/testing';
import { SERVICES } from '../../src/system/up-args.js';
import { serviceEntry, startUp, type UpSystem } from '../../src/system/up.js';
import { holdLock, lockWaiters, waitForLockWaiter, waitForNoLockWaiter } from './locks.js';

/** A JSON-RPC answer of `/a2a` or `/mcp`. */
export interface JsonRpcAnswer {
  jsonrpc?: '2.0';
  id?: unknown;
  result?: Record<string, any>;
  error?: { code: number; message: string };
}

/**
 * A `ledger.commit_journal` row as the suites read it (world-internals §5.5): `entry_index` is
 * the bigint as pg answers it (text); `lapsed` is `claim_expires_at <= clock_timestamp()`;
 * `ms_left` the milliseconds until the claim expires (negative once lapsed; numeric, as text).
 */
interface JournalRow {
  state: string;
  end_reason: string | null;
  claim_holder: string | null;
  entry_index: string | null;
  lapsed: boolean | null;
  ms_left: string | null;
}

/** The SQL of each `JournalRow` column. */
const JOURNAL_COLUMNS: Record<keyof JournalRow, string> = {
  state: 'state',
  end_reason: 'end_reason',
  claim_holder: 'claim_holder',
  entry_index: 'entry_index',
  lapsed: 'claim_expires_at <= clock_timestamp() AS lapsed',
  ms_left: 'extract(epoch FROM claim_expires_at - clock_timestamp()) * 1000 AS ms_left',
};

export interface UpWorld {
  up: UpSystem;
  rpc: RpcClient;
  sql: pg.Client;
  /** every line of every process, in arrival order */
  lines: Array<{ replica: string; line: string }>;
  /**
   * Resolves with the first of `lines` that `match` accepts, once one has arrived.
   * @throws the `eventually` timeout error (naming `what`) after `timeoutMs` milliseconds
   */
  waitForLine(
    match: (l: { replica: string; line: string }) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<{ replica: string; line: string }>;
  /** the environment every process was started with */
  env: NodeJS.ProcessEnv;
  /** Creates an episode holding these files and a session with these grants; returns both. */
  episode(
    id: string,
    files: Record<string, string>,
    grants: Grant[],
  ): Promise<{ worktree: string; token: string }>;
  /** A2A `tasks/send` of one skill with task id `taskId` through gateway `gateway` (0 or 1). */
  tasksSend(
    token: string,
    taskId: string,
    skill: string,
    args: Record<string, unknown>,
    gateway?: number,
  ): Promise<JsonRpcAnswer>;
  /**
   * MCP `tools/call` with `_meta["world/taskId"]` through gateway `gateway`; with `taskId`
   * undefined, an unkeyed call (no `_meta`).
   */
  mcpCall(
    token: string,
    taskId: string | undefined,
    tool: string,
    args: Record<string, unknown>,
    gateway?: number,
  ): Promise<JsonRpcAnswer>;
  /** Rows of a query on the test database. */
  q<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * `holdLock` on the test database: `lockSql` held in a transaction of its own until the
   * answered (idempotent) release; `releaseLocks` and `close` release it too.
   */
  holdLock(lockSql: string): Promise<() => Promise<void>>;
  /**
   * Releases every lock `holdLock` took that is still held, for a suite's clean-up after a
   * failed test: a release's error is dropped, so the test's own failure is the one reported.
   */
  releaseLocks(): Promise<void>;
  /** `lockWaiters` of the test database: backends waiting on a lock. */
  lockWaiters(): Promise<number>;
  /** `waitForLockWaiter` on the test database (10 s). */
  waitForLockWaiter(what?: string): Promise<void>;
  /** `waitForNoLockWaiter` on the test database (10 s). */
  waitForNoLockWaiter(what?: string): Promise<void>;
  /**
   * `broker.episode.spend` of episode `ep`, read with the operator's scope (`READ_ALL`): each
   * grant's `[effect, spent]` (cost units), in the broker's order.
   */
  spent(ep: string): Promise<Array<[string, number]>>;
  /** The `columns` of `invocationId`'s commit journal row, or null where there is none. */
  journalRow<C extends keyof JournalRow>(
    invocationId: string,
    columns: readonly C[],
  ): Promise<Pick<JournalRow, C> | null>;
  close(): Promise<void>;
}

/** A port whose successor is free too (the two gateways bind consecutive ports). */
async function consecutiveFreePorts(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  // Below Linux's ephemeral range (32768–60999): an outgoing connection of a parallel suite
  // cannot be given port + 1 between this check and the second gateway's bind.
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await free(port)) && (await free(port + 1))) return port;
  }
}

/**
 * Starts `world up --replicas <replicas>` at invocation deadline `callDeadlineMs`.
 * @param extraEnv more variables for every process; a NATS_URL there replaces the test NATS
 *   server for the processes and the test's own bus client alike
 */
export async function startUpWorld(
  label: string,
  replicas: string,
  callDeadlineMs: number,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<UpWorld> {
  for (const service of SERVICES) {
    if (!existsSync(serviceEntry(service)))
      throw new Error(`${serviceEntry(service)} is missing: build first (pnpm build)`);
  }
  const db = await createTestDatabase(label);
  const home = await mkdtemp(join(tmpdir(), `world-${label}-`));
  const prefix = uniquePrefix(label);
  const natsUrl = extraEnv.NATS_URL ?? testNatsUrl();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NATS_URL: natsUrl,
    DATABASE_URL: db.url,
    WORLD_SUBJECT_PREFIX: prefix,
    WORLD_HOME: join(home, 'home'),
    WORLD_WORKSPACE_ROOT: join(home, 'worktrees'),
    WORLD_BIND: `127.0.0.1:${await consecutiveFreePorts()}`,
    WORLD_CALL_DEADLINE_MS: String(callDeadlineMs),
    WORLD_LOG_LEVEL: 'info',
    ...extraEnv,
  };
  await mkdir(env.WORLD_HOME!, { recursive: true });
  const lines: UpWorld['lines'] = [];
  const up = await startUp(
    { replicas, onLine: (replica, line) => lines.push({ replica, line }) },
    env,
  );
  const rpc = await connectRpc({ kind: 'nats', url: natsUrl, prefix }, `${label}-test`);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const q = async <T>(text: string, params: unknown[] = []) =>
    (await sql.query(text, params)).rows as T[];
  const releases = new Set<() => Promise<void>>();
  const releaseLocks = async () => {
    const pending = [...releases];
    releases.clear();
    await Promise.allSettled(pending.map((release) => release()));
  };

  const post = async (gateway: number, path: string, token: string, body: unknown) => {
    const res = await fetch(`${up.gateways[gateway]}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const data = res.headers.get('content-type')?.startsWith('text/event-stream')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6)
      : text;
    return JSON.parse(data) as JsonRpcAnswer;
  };

  return {
    up,
    rpc,
    sql,
    lines,
    waitForLine: (match, timeoutMs, what) => eventually(() => lines.find(match), timeoutMs, what),
    env,
    async episode(id, files, grants) {
      const src = await mkdtemp(join(tmpdir(), `world-${label}-src-`));
      for (const [rel, content] of Object.entries(files)) await writeFile(join(src, rel), content);
      const { worktree } = await rpc.request(
        'broker.episode.create',
        { episodeId: id, source: { kind: 'copy', dir: src } },
        { timeoutMs: 10_000 },
      );
      await rm(src, { recursive: true, force: true });
      const { token } = await rpc.request(
        'broker.session.mint',
        { episodeId: id, grants, ttlSeconds: 3600 },
        { timeoutMs: 10_000 },
      );
      return { worktree, token };
    },
    tasksSend(token, taskId, skill, args, gateway = 0) {
      return post(gateway, '/a2a', token, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tasks/send',
        params: {
          id: taskId,
          metadata: { skill_id: skill },
          message: { role: 'user', parts: [{ type: 'data', data: args }] },
        },
      });
    },
    mcpCall(token, taskId, tool, args, gateway = 0) {
      return post(gateway, '/mcp', token, {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: {
          name: tool,
          arguments: args,
          ...(taskId !== undefined && { _meta: { 'world/taskId': taskId } }),
        },
      });
    },
    q,
    async holdLock(lockSql) {
      const held = await holdLock(db.url, lockSql);
      const release = async () => {
        releases.delete(release);
        await held();
      };
      releases.add(release);
      return release;
    },
    releaseLocks,
    lockWaiters: () => lockWaiters(q),
    waitForLockWaiter: (what) => waitForLockWaiter(q, what),
    waitForNoLockWaiter: (what) => waitForNoLockWaiter(q, what),
    async spent(ep) {
      const { grants } = await rpc.request(
        'broker.episode.spend',
        { episodeId: ep, scope: READ_ALL },
        { timeoutMs: 5_000 },
      );
      return grants.map((g) => [g.effect, g.spent] as [string, number]);
    },
    async journalRow(invocationId, columns) {
      const rows = await q<Pick<JournalRow, (typeof columns)[number]>>(
        `SELECT ${columns.map((c) => JOURNAL_COLUMNS[c]).join(', ')}
           FROM ledger.commit_journal WHERE invocation_id = $1`,
        [invocationId],
      );
      return rows[0] ?? null;
    },
    async close() {
      await releaseLocks();
      await up.stop();
      // WORLD_E2E_LOG=<file> keeps every process's lines for a post-mortem.
      if (process.env.WORLD_E2E_LOG)
        await writeFile(
          `${process.env.WORLD_E2E_LOG}.${label}`,
          lines.map((l) => `[${l.replica}] ${l.line}\n`).join(''),
        );
      await rpc.close();
      await sql.end();
      await db.drop();
      await rm(home, { recursive: true, force: true });
    },
  };
}
