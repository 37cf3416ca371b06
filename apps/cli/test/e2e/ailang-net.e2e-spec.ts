/**
 * A Net program through `ailang-run` on a booted World, against a loopback HTTP server this test
 * starts (README "Operator settings": WORLD_RUN_ALLOW_CAPS=Net, WORLD_RUN_NET_ALLOW and
 * WORLD_RUN_NET_ALLOW_HTTP; world-spec §3.5 operator gates and capability variants, §7.2
 * `--run-net-allow-http`). With the operator's plain-http allowance the program reaches the
 * server; without it the same call is refused inside the program and the server sees nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Grant } from '@world/contracts';
import { FULL_GRANTS, MODES, startTestSystem, type TestSystem } from '../support/system.js';

const SHA = /^sha256:[0-9a-f]{64}$/;
const NET_GRANTS: Grant[] = [
  ...FULL_GRANTS,
  { effect: 'Ailang.RunNet', scope: 'worktree', budget: 5 },
];

/** A GET and a POST to the server on `port`, each answer printed. */
const netProgram = (port: number): string =>
  [
    'module net',
    '',
    'import std/io (println)',
    'import std/net (httpGet, httpPost)',
    '',
    'export func main() -> () ! {IO, Net} {',
    `  println(httpGet("http://127.0.0.1:${port}/hello"));`,
    `  println(httpPost("http://127.0.0.1:${port}/echo", "{\\"n\\":1}"))`,
    '}',
    '',
  ].join('\n');

/** The loopback server: /hello answers a text, /echo the method, type and body it received. */
async function loopback(): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(
        req.url === '/hello'
          ? 'hello from the loopback server'
          : `${req.method} ${req.headers['content-type'] ?? '-'} ${body}`,
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

async function stop(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
}

describe.each(MODES)('ailang-run with Net and plain http allowed (%s mode)', (mode) => {
  let w: TestSystem;
  let http: Awaited<ReturnType<typeof loopback>>;
  let token: string;

  beforeAll(async () => {
    http = await loopback();
    w = await startTestSystem(mode, {
      broker: {
        runAllowCaps: ['Net'],
        netAllow: [`127.0.0.1:${http.port}`],
        netAllowHttp: true,
      },
    });
    await w.episode('ep1', { 'net.ail': netProgram(http.port) });
    token = await w.session('ep1', NET_GRANTS);
  });
  afterAll(async () => {
    await w?.close();
    await stop(http?.server);
  });

  it('runs the program against the allow-listed IP:PORT as an Ailang.RunNet effect', async () => {
    const out = (await w.call(token, 'ailang-run', {
      path: 'net.ail',
      caps: ['IO', 'Net'],
    })) as Record<string, any>;
    expect([out.admitted, out.exit_code, out.limit, out.stdout]).toEqual([
      true,
      0,
      null,
      'hello from the loopback server\nPOST application/json {"n":1}\n',
    ]);
    expect(http.seen).toEqual(['GET /hello', 'POST /echo']);
    expect(out.decision).toEqual({
      ok: true,
      function: 'main',
      declared_effects: ['IO', 'Net'],
      allowed_caps: ['FS', 'IO', 'Net'],
    });
    expect(out.policy).toEqual({
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      security_mode: 'restricted',
      caps: ['FS', 'IO', 'Net'],
      net_allow: [`127.0.0.1:${http.port}`],
    });
    expect(out.world.effects).toEqual([
      { id: 'e1', status: 'ok', record: expect.stringMatching(SHA) },
    ]);
    const plan = await w.payload(out.world.plan, token);
    expect(plan.effects.map((e: { effect: string }) => e.effect)).toEqual(['Ailang.RunNet']);
  });
});

describe('ailang-run with Net but without the plain-http allowance (embedded mode)', () => {
  let w: TestSystem;
  let http: Awaited<ReturnType<typeof loopback>>;
  let token: string;

  beforeAll(async () => {
    http = await loopback();
    w = await startTestSystem('embedded', {
      broker: { runAllowCaps: ['Net'], netAllow: [`127.0.0.1:${http.port}`] },
    });
    await w.episode('ep1', { 'net.ail': netProgram(http.port) });
    token = await w.session('ep1', NET_GRANTS);
  });
  afterAll(async () => {
    await w?.close();
    await stop(http?.server);
  });

  it('refuses plain http inside the program, and the server sees no request', async () => {
    const out = (await w.call(token, 'ailang-run', {
      path: 'net.ail',
      caps: ['IO', 'Net'],
    })) as Record<string, any>;
    const blocked =
      'E_NET_REQUEST_FAILED: E_NET_PROTOCOL_BLOCKED: http:// blocked (use --net-allow-http to enable)\n';
    expect([out.admitted, out.exit_code, out.stdout]).toEqual([true, 0, blocked + blocked]);
    expect(http.seen).toEqual([]);
  });
});
