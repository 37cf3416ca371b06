/**
 * The end-to-end harness: a whole World booted in this process, in either run mode, driven over
 * HTTP like an agent would (DESIGN.md §6). Embedded = the in-process bus on a fresh database of
 * the machine's PostgreSQL (the server `world start` runs itself is covered by start-up and
 * postgres e2e suites); distributed = a fresh PostgreSQL database + real NATS under a fresh
 * subject prefix.
 */
import { chmod, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { createTestDatabase, testNatsUrl, uniquePrefix, type TestDatabase } from '@world/testing';
import { openPostgres } from '@world/runtime';
import type { Grant } from '@world/contracts';
import {
  startDistributedInProcess,
  startEmbedded,
  type System,
  type SystemOptions,
} from '../../src/system/embedded.js';
import { worldPaths, type WorldPaths } from '../../src/system/paths.js';

export type Mode = 'embedded' | 'distributed';

/**
 * A fresh directory for a WORLD_HOME whose `world start` runs its own PostgreSQL server. mkdtemp
 * makes it 0700; under root the cluster belongs to user world-postgres, which must be able to
 * traverse it (0711: search, no listing), as it must for any WORLD_HOME a root World uses.
 */
export async function tempHomeRoot(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o711);
  return dir;
}
export const MODES: Mode[] = ['embedded', 'distributed'];

/** Grants of the fixture session of world-spec §11: 50 of each effect. */
export const FULL_GRANTS: Grant[] = [
  'Workspace.Read',
  'Workspace.Write',
  'Ailang.Check',
  'Ailang.Run',
  'Ailang.Discover',
  'Ailang.CLI',
].map((effect) => ({ effect, scope: 'worktree', budget: 50 }));

/** hello.ail of the §11 fixture. */
export const HELLO_AIL =
  'module hello\n\nimport std/io (println)\n\nexport func main() -> () ! {IO} {\n  println("hello from ailang-run")\n}\n';

/** A JSON-RPC response as read off the wire. */
interface RpcAnswer {
  status: number;
  contentType: string;
  text: string;
  body: {
    jsonrpc: '2.0';
    id: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  } | null;
}

export interface TestSystem {
  mode: Mode;
  system: System;
  url: string;
  paths: WorldPaths;
  operatorToken: string;
  /** the PostgreSQL database's connection string */
  databaseUrl: string;
  /** Creates an episode whose worktree holds these files (relative path → content). */
  episode(episodeId: string, files?: Record<string, string>): Promise<string>;
  /** Mints a session and returns its token. */
  session(episodeId: string, grants: Grant[], ttlSeconds?: number): Promise<string>;
  /** POSTs one MCP JSON-RPC request the way a 2025-11-25 client does, and parses the answer. */
  mcp(
    token: string | null,
    method: string,
    params: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<RpcAnswer>;
  /** tools/call: the result's structuredContent, or throws with the JSON-RPC error. */
  call(
    token: string,
    tool: string,
    args: unknown,
    meta?: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** GET a /v1 path with the session (or none); returns status, content type and parsed body. */
  get(
    path: string,
    token?: string | null,
  ): Promise<{ status: number; contentType: string; text: string; json: any }>;
  /** The payload of an object, parsed as JSON (read through GET /v1/objects/{ref}?payload=true). */
  payload(ref: string, token: string): Promise<any>;
  v1Client(token: string): Promise<V1Client>;
  v2Client(token: string): Promise<V2Client>;
  close(): Promise<void>;
}

/** Starts a system in the given mode. */
export async function startTestSystem(
  mode: Mode,
  options: {
    callDeadlineMs?: number;
    publicReads?: boolean;
    logStreamRunMs?: number;
    /** POST /agui's run length and heartbeat */
    agui?: { runMs?: number; heartbeatMs?: number };
    /** the broker's operator settings (README "Operator settings") */
    broker?: SystemOptions['broker'];
    /** the gateway's wall clock (SystemOptions.gatewayClock) */
    gatewayClock?: SystemOptions['gatewayClock'];
  } = {},
): Promise<TestSystem> {
  const home = await mkdtemp(join(tmpdir(), `world-e2e-${mode}-`));
  const paths = worldPaths({
    WORLD_HOME: join(home, 'home'),
    WORLD_WORKSPACE_ROOT: join(home, 'ws'),
  });
  const db: TestDatabase = await createTestDatabase('e2e');
  let system: System;
  if (mode === 'embedded') {
    system = await startEmbedded({
      paths,
      bind: '127.0.0.1:0',
      database: await openPostgres(db.url, { max: 10 }),
      ...options,
    });
  } else {
    system = await startDistributedInProcess({
      paths,
      bind: '127.0.0.1:0',
      natsUrl: testNatsUrl(),
      prefix: uniquePrefix('e2e'),
      database: await openPostgres(db.url, { max: 10 }),
      dbPath: db.name,
      ...options,
    });
  }
  const operatorToken = (await readFile(paths.operatorTokenFile, 'utf8')).trim();
  const url = system.url;
  const clients: Array<{ close(): Promise<void> }> = [];

  const mcp: TestSystem['mcp'] = async (token, method, params, headers = {}) => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let body: RpcAnswer['body'] = null;
    if (contentType.startsWith('text/event-stream')) {
      const data = text.split('\n').find((l) => l.startsWith('data: '));
      body = data === undefined ? null : JSON.parse(data.slice(6));
    } else if (contentType.startsWith('application/json')) {
      body = JSON.parse(text);
    }
    return { status: res.status, contentType, text, body };
  };

  const t: TestSystem = {
    mode,
    system,
    url,
    paths,
    operatorToken,
    databaseUrl: db.url,
    async episode(episodeId, files = {}) {
      const dir = await mkdtemp(join(tmpdir(), 'world-e2e-src-'));
      for (const [rel, content] of Object.entries(files)) {
        await mkdir(dirname(join(dir, rel)), { recursive: true });
        await writeFile(join(dir, rel), content);
      }
      const reply = await system.rpc.request(
        'broker.episode.create',
        { episodeId, source: { kind: 'copy', dir } },
        { timeoutMs: 10_000 },
      );
      await rm(dir, { recursive: true, force: true });
      return reply.worktree;
    },
    async session(episodeId, grants, ttlSeconds = 3600) {
      const minted = await system.rpc.request(
        'broker.session.mint',
        { episodeId, grants, ttlSeconds },
        { timeoutMs: 10_000 },
      );
      return minted.token;
    },
    mcp,
    async call(token, tool, args, meta) {
      const answer = await mcp(token, 'tools/call', {
        name: tool,
        arguments: args,
        ...(meta ? { _meta: meta } : {}),
      });
      if (answer.body?.result === undefined) {
        throw new Error(`tools/call ${tool} failed: ${answer.status} ${answer.text}`);
      }
      return answer.body.result.structuredContent as Record<string, unknown>;
    },
    async get(path, token = operatorToken) {
      const res = await fetch(`${url}${path}`, {
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
      });
      const text = await res.text();
      const contentType = res.headers.get('content-type') ?? '';
      return {
        status: res.status,
        contentType,
        text,
        json: contentType.includes('json') ? JSON.parse(text) : undefined,
      };
    },
    async payload(ref, token) {
      const res = await t.get(`/v1/objects/${ref}?payload=true`, token);
      if (res.status !== 200) throw new Error(`object ${ref}: ${res.status} ${res.text}`);
      return JSON.parse(Buffer.from(res.json.payload, 'base64').toString('utf8'));
    },
    async v1Client(token) {
      const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
      await client.connect(
        new V1Transport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    async v2Client(token) {
      const client = new V2Client(
        { name: 'e2e-v2', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        new V2Transport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => undefined);
      await system.close();
      await db.drop();
      await rm(home, { recursive: true, force: true });
    },
  };
  return t;
}
