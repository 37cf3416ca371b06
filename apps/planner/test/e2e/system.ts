/**
 * A whole World in this process for the operations tests: ledger, broker, planner and gateway on
 * one transport (the in-process bus, or real NATS), on a fresh PostgreSQL database, each service with its own health server on a free loopback port, as its process
 * entry would start it with WORLD_HEALTH_PORT=0.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Grant, Session } from '@world/contracts';
import { startBroker, workspaceRead, type EffectHandler } from '@world/broker';
import { startGateway, type RunningGateway } from '@world/gateway';
import { startLedger } from '@world/ledger';
import {
  InProcessBus,
  connectRpc,
  openPostgres,
  sharedHandle,
  startHealthServer,
  type DatabaseHandle,
  type HealthServer,
  type RpcClient,
  type RunningService,
  type TransportConfig,
} from '@world/runtime';
import { createTestDatabase, testNatsUrl, uniquePrefix, type TestDatabase } from '@world/testing';
import { startPlanner } from '../../src/index.js';

export type Mode = 'embedded' | 'distributed';

/** A running system and the handles the tests read. */
export interface OpsSystem {
  ledger: RunningService;
  broker: RunningService;
  planner: RunningService;
  gateway: RunningGateway;
  /** each service's health server, by service name */
  health: Record<'ledger' | 'broker' | 'planner' | 'gateway', HealthServer>;
  rpc: RpcClient;
  /**
   * Runs before the next Workspace.Read handler (then is cleared): lets a test break the system
   * after an effect ran, the way a crash would.
   */
  beforeNextRead(hook: () => Promise<void>): void;
  /** Creates an episode whose worktree holds these files. */
  episode(episodeId: string, files: Record<string, string>): Promise<void>;
  /** Mints a session; returns its token and the session the broker resolves it to. */
  session(episodeId: string, grants: Grant[]): Promise<{ token: string; session: Session }>;
  /** POSTs one MCP `tools/call` as a 2025-11-25 client; returns the JSON-RPC answer. */
  mcpCall(
    token: string,
    tool: string,
    args: unknown,
    headers?: Record<string, string>,
  ): Promise<McpAnswer>;
  close(): Promise<void>;
}

/** A JSON-RPC answer to tools/call. */
interface McpAnswer {
  status: number;
  result?: { structuredContent: Record<string, unknown> };
  error?: { code: number; message: string };
}

const OPERATOR_TOKEN = 'f'.repeat(64);
const RPC_TIMEOUT_MS = 10_000;
const SESSION_TTL_SECONDS = 3600;

/** Boots the four services in the given mode. */
export async function startOpsSystem(mode: Mode): Promise<OpsSystem> {
  const home = await mkdtemp(join(tmpdir(), `world-ops-${mode}-`));
  const tdb: TestDatabase = await createTestDatabase('ops');
  const database: DatabaseHandle = await openPostgres(tdb.url, { max: 10 });
  const transport: TransportConfig =
    mode === 'embedded'
      ? { kind: 'inproc', bus: new InProcessBus() }
      : { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('ops') };
  let hook: (() => Promise<void>) | undefined;
  const read: EffectHandler = {
    ...workspaceRead,
    async run(payload, ctx) {
      const before = hook;
      hook = undefined;
      await before?.();
      return workspaceRead.run(payload, ctx);
    },
  };
  const ledger = await startLedger({ transport, database: sharedHandle(database) });
  const broker = await startBroker({
    transport,
    database: sharedHandle(database),
    worldHome: join(home, 'home'),
    workspaceRoot: join(home, 'ws'),
    handlers: { 'Workspace.Read': read },
  });
  const planner = await startPlanner({ transport });
  const gateway = await startGateway({
    transport,
    bind: '127.0.0.1:0',
    worldHome: join(home, 'home'),
    operatorToken: OPERATOR_TOKEN,
  });
  const serve = (service: RunningService) =>
    startHealthServer({ port: 0, host: '127.0.0.1', checks: service.checks ?? {} });
  const health = {
    ledger: await serve(ledger),
    broker: await serve(broker),
    planner: await serve(planner),
    gateway: await serve(gateway),
  };
  const rpc = await connectRpc(transport, `ops-${mode}-client`);
  return {
    ledger,
    broker,
    planner,
    gateway,
    health,
    rpc,
    beforeNextRead(next) {
      hook = next;
    },
    async episode(episodeId, files) {
      const dir = await mkdtemp(join(tmpdir(), 'world-ops-src-'));
      for (const [name, content] of Object.entries(files))
        await writeFile(join(dir, name), content);
      await rpc.request(
        'broker.episode.create',
        { episodeId, source: { kind: 'copy', dir } },
        { timeoutMs: RPC_TIMEOUT_MS },
      );
      await rm(dir, { recursive: true, force: true });
    },
    async session(episodeId, grants) {
      const { token, ...session } = await rpc.request(
        'broker.session.mint',
        { episodeId, grants, ttlSeconds: SESSION_TTL_SECONDS },
        { timeoutMs: RPC_TIMEOUT_MS },
      );
      return { token, session };
    },
    async mcpCall(token, tool, args, headers = {}) {
      const res = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          authorization: `Bearer ${token}`,
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool, arguments: args },
        }),
      });
      const text = await res.text();
      const json = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
        ? JSON.parse(
            text
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
          )
        : JSON.parse(text);
      return { status: res.status, result: json.result, error: json.error };
    },
    async close() {
      await rpc.close();
      for (const server of Object.values(health)) await server.close();
      for (const service of [gateway, planner, broker, ledger]) await service.close();
      await database.close();
      await tdb?.drop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** Reads one health server's /metrics and returns the sample lines (no comments). */
export async function scrape(server: HealthServer | string): Promise<string[]> {
  const url =
    typeof server === 'string' ? `${server}/metrics` : `http://127.0.0.1:${server.port}/metrics`;
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.text()).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * The value of one sample (`name{labels}`), 0 when absent. Labels are given in the order the
 * registry prints them (the metric's label names, replica first).
 */
export function sample(lines: string[], name: string, labels: Record<string, string>): number {
  const key = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;
  const line = lines.find((l) => l.startsWith(`${key} `));
  return line === undefined ? 0 : Number(line.slice(key.length + 1));
}
