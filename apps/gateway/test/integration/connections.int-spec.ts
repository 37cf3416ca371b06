/**
 * The gateway process (dist/main.js) against fake services over NATS: what a connection can hold
 * and what a shutdown still takes.
 * - A connection that sends nothing is closed after HTTP_IDLE_TIMEOUT_MS, and at most
 *   HTTP_MAX_CONNECTIONS are open at once (world-internals §9 HTTP limits): 500 idle sockets no
 *   longer hold 500 connections.
 * - SIGTERM stops taking calls first (readiness `draining`, new requests 503 ShuttingDown with
 *   `Connection: close`, also on kept-alive connections), then lets the call in flight answer,
 *   then exits 0 (world-spec §7.2).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { INestMicroservice } from '@nestjs/common';
import { HTTP_IDLE_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, MESSAGES } from '@world/contracts';
import { startMicroservice, type TransportConfig } from '@world/runtime';
import {
  eventually,
  freePort,
  startNode,
  testNatsUrl,
  uniquePrefix,
  type TestProcess,
} from '@world/testing';
import { FakeWorld, hex, tool } from './fake-world.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
const SESSION = hex('c');
const IDLE_SOCKETS = 500;

/** One HTTP exchange through an agent (so the test chooses which connection carries it). */
function exchange(
  url: string,
  agent: Agent,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
  onSocket?: (socket: Socket) => void,
): Promise<
  | { kind: 'answer'; status: number; connection: string | undefined; body: string }
  | { kind: 'no answer'; code: string }
> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          kind: 'answer',
          status: res.statusCode ?? 0,
          connection: res.headers.connection,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    if (onSocket !== undefined) req.once('socket', onSocket);
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ kind: 'no answer', code: err.code ?? err.message }),
    );
    req.end(body);
  });
}

/** A `tools/call` of `name` over MCP Streamable HTTP (stateless: no initialize needed). */
function mcpCall(
  url: string,
  agent: Agent,
  id: number,
  name: string,
  onSocket?: (socket: Socket) => void,
) {
  return exchange(
    `${url}/mcp`,
    agent,
    'POST',
    {
      authorization: `Bearer ${SESSION}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
    onSocket,
  );
}

/** Prometheus text → the value of one series (0 when absent). */
function series(text: string, line: RegExp): number {
  const m = text.split('\n').find((l) => line.test(l));
  return m === undefined ? 0 : Number(m.slice(m.lastIndexOf(' ') + 1));
}

describe('the gateway process: idle and surplus connections, and what a shutdown still takes', () => {
  let home: string;
  let world: FakeWorld;
  let services: INestMicroservice[];
  let transport: TransportConfig;
  let gateway: TestProcess;
  let url: string;
  let healthUrl: string;

  beforeAll(async () => {
    if (!existsSync(MAIN))
      throw new Error(
        `${MAIN} is missing: build the gateway first (pnpm exec turbo run build --filter=@world/gateway...)`,
      );
    home = await mkdtemp(join(tmpdir(), 'world-gateway-connections-'));
    world = new FakeWorld();
    world.registry = [tool('fast', 'Workspace.Read'), tool('slow', 'Workspace.Read')];
    world.addSession(SESSION, [['Workspace.Read', 50]]);
    transport = { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('gateway-conn') };
    const modules = world.modules();
    services = [
      await startMicroservice('planner', modules.planner, transport),
      await startMicroservice('broker', modules.broker, transport),
    ];
  });

  afterAll(async () => {
    gateway?.kill('SIGKILL');
    for (const s of services ?? []) await s.close();
    await rm(home, { recursive: true, force: true });
  });

  async function startGatewayProcess(): Promise<void> {
    const port = await freePort();
    const healthPort = await freePort();
    gateway = startNode(MAIN, [], {
      NATS_URL: transport.kind === 'nats' ? transport.url : '',
      WORLD_SUBJECT_PREFIX: transport.kind === 'nats' ? transport.prefix : '',
      WORLD_BIND: `127.0.0.1:${port}`,
      WORLD_HOME: home,
      WORLD_HEALTH_PORT: String(healthPort),
      WORLD_HEALTH_HOST: '127.0.0.1',
      WORLD_LOG_LEVEL: 'info',
    });
    await gateway.waitForLine(/"msg":"ready"/);
    url = `http://127.0.0.1:${port}`;
    healthUrl = `http://127.0.0.1:${healthPort}`;
  }

  const metrics = async () => (await fetch(`${healthUrl}/metrics`)).text();

  it(`of ${IDLE_SOCKETS} sockets that send nothing, refuses ${IDLE_SOCKETS - HTTP_MAX_CONNECTIONS} beyond the cap at once and closes the other ${HTTP_MAX_CONNECTIONS} when idle`, async () => {
    await startGatewayProcess();
    const { port } = new URL(url);
    let connected = 0;
    let closed = 0;
    const sockets: Socket[] = [];
    for (let i = 0; i < IDLE_SOCKETS; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      socket.on('connect', () => connected++);
      socket.on('error', () => undefined);
      socket.on('close', () => closed++);
      sockets.push(socket);
    }
    try {
      // Those beyond the cap are closed at accept: the server counts them refused.
      await eventually(
        async () =>
          series(await metrics(), /^world_http_connections_closed_total\{.*reason="refused"/) ===
            IDLE_SOCKETS - HTTP_MAX_CONNECTIONS && closed === IDLE_SOCKETS - HTTP_MAX_CONNECTIONS
            ? true
            : undefined,
        20_000,
        'the connections beyond the cap refused',
      );
      const atCap = await metrics();
      expect([
        connected,
        closed,
        series(atCap, /^world_http_connections\{/),
        series(atCap, /^world_http_connections_closed_total\{.*reason="idle"/),
      ]).toEqual([IDLE_SOCKETS, IDLE_SOCKETS - HTTP_MAX_CONNECTIONS, HTTP_MAX_CONNECTIONS, 0]);
      // The rest sent nothing: each is closed by the server once idle.
      await eventually(
        () => (closed === IDLE_SOCKETS ? true : undefined),
        30_000,
        'every idle socket closed by the server',
      );
      const after = await metrics();
      expect([
        series(after, /^world_http_connections\{/),
        series(after, /^world_http_connections_closed_total\{.*reason="refused"/),
        series(after, /^world_http_connections_closed_total\{.*reason="idle"/),
      ]).toEqual([0, IDLE_SOCKETS - HTTP_MAX_CONNECTIONS, HTTP_MAX_CONNECTIONS]);
    } finally {
      for (const s of sockets) s.destroy();
    }
    // The gateway still serves a client that speaks.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const answer = await mcpCall(url, agent, 1, 'fast');
    agent.destroy();
    expect(answer.kind === 'answer' ? answer.status : answer.code).toBe(200);
    gateway.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
  }, 90_000);

  it('keeps a kept-alive connection open past the Keep-Alive timeout it advertises, so a request sent at its edge is answered on it, then closes it idle', async () => {
    await startGatewayProcess();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets: Socket[] = [];
    let advertised: string | undefined;
    const first = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${url}/readyz`, { agent }, (res) => {
        advertised = String(res.headers['keep-alive']);
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('socket', (s) => sockets.push(s));
      req.on('error', reject).end();
    });
    expect([first, advertised]).toEqual([200, `timeout=${HTTP_IDLE_TIMEOUT_MS / 1000}`]);
    // One second past the advertised timeout: a client that trusted the hint a little too long
    // (or whose request waited in a busy event loop) still gets its answer on this connection.
    await new Promise((r) => setTimeout(r, HTTP_IDLE_TIMEOUT_MS + 1_000));
    const second = await exchange(`${url}/readyz`, agent, 'GET', {}, undefined, (s) =>
      sockets.push(s),
    );
    expect([second.kind === 'answer' ? second.status : second, sockets.length]).toEqual([200, 2]);
    expect(sockets[1]).toBe(sockets[0]);
    // Left idle, it is closed by the gateway (counted as idle).
    await eventually(
      () => (sockets[0]!.destroyed ? true : undefined),
      15_000,
      'the idle kept-alive connection to be closed',
    );
    expect(series(await metrics(), /^world_http_connections_closed_total\{.*reason="idle"/)).toBe(
      1,
    );
    agent.destroy();
    gateway.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('on SIGTERM takes no new call, also on kept-alive connections (503 ShuttingDown, Connection: close, readiness draining), answers the call in flight, then exits 0', async () => {
    await startGatewayProcess();
    let release!: (fields: Record<string, unknown>) => void;
    world.behaviour.set('slow', {
      kind: 'held',
      until: new Promise((resolve) => (release = resolve)),
    });
    const busy = new Agent({ keepAlive: true, maxSockets: 1 });
    const idle = new Agent({ keepAlive: true, maxSockets: 1 });
    const invoked = () => world.callsOf('planner.invoke').map((c) => c.toolId);
    world.calls.length = 0;
    // A kept-alive connection that answered a call and now waits, and one with a call in flight.
    const warm = await mcpCall(url, idle, 1, 'fast');
    expect(warm.kind === 'answer' ? [warm.status, warm.connection] : warm).toEqual([
      200,
      'keep-alive',
    ]);
    let busySocket: Socket | undefined;
    const inFlight = mcpCall(url, busy, 2, 'slow', (s) => (busySocket = s));
    await eventually(() => (invoked().includes('slow') ? true : undefined), 10_000, 'slow call');

    gateway.kill('SIGTERM');
    await gateway.waitForLine(/"msg":"shutting down"/);
    const refusal = {
      kind: 'answer',
      status: 503,
      connection: 'close',
      body: JSON.stringify({ error: { class: 'ShuttingDown', message: MESSAGES.shuttingDown } }),
    };
    // The kept-alive connection's next call is refused, and so is a call on a new connection.
    expect(await mcpCall(url, idle, 3, 'fast')).toEqual(refusal);
    const fresh = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await mcpCall(url, fresh, 4, 'fast')).toEqual(refusal);
    // Readiness is false on both ports; liveness holds.
    for (const base of [url, healthUrl]) {
      const ready = await exchange(`${base}/readyz`, fresh, 'GET');
      expect([
        base,
        ready.kind === 'answer' ? [ready.status, JSON.parse(ready.body)] : ready,
      ]).toEqual([base, [503, { status: 'draining', checks: { nats: 'ok' } }]]);
    }
    expect(invoked()).toEqual(['fast', 'slow']);

    // The call in flight answers, and the server ends its connection after the answer (with
    // `Connection: close` when its headers were still unsent, else right after its last byte).
    release({ ok: true, note: 'finished during the drain' });
    const answered = await inFlight;
    expect(answered.kind === 'answer' ? answered.status : answered).toBe(200);
    await eventually(
      () => (busySocket?.destroyed === true ? true : undefined),
      10_000,
      'the server to end the connection that carried the call',
    );
    // Its answer is an SSE event (the headers went out when the call began).
    const data = (answered.kind === 'answer' ? answered.body : '')
      .split('\n')
      .find((l) => l.startsWith('data: '));
    expect(
      (
        JSON.parse(data!.slice('data: '.length)) as {
          result: { structuredContent: { note: string } };
        }
      ).result.structuredContent.note,
    ).toBe('finished during the drain');
    // Nothing more reaches the planner through that connection's agent: refused or no server.
    const after = await mcpCall(url, busy, 5, 'fast');
    expect(
      after.kind === 'answer'
        ? after.status === 503 && after.body === refusal.body
        : ['ECONNREFUSED', 'ECONNRESET'].includes(after.code),
    ).toBe(true);
    expect(invoked()).toEqual(['fast', 'slow']);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    for (const a of [busy, idle, fresh]) a.destroy();
  }, 90_000);
});
