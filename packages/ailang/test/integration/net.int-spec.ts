import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AILANG_NET_MAX_RESPONSE_BYTES } from '@world/contracts';
import { OperatorGateError, embeddedToolchain, renderPolicyToml } from '../../src/index.js';
import type { AilangContext } from '../../src/toolchain/types.js';
import { episodePolicy } from '../helpers/programs.js';

/**
 * std/net of the embedded toolchain against real loopback servers started here (world-spec §3.5
 * capability variants: a Net run reaches only the operator's `IP:PORT` literals, redirect hops
 * refused; world-spec §7.2 `--run-net-allow-http`; ailang.md §2.3 std/net). The runs go through
 * the toolchain's public `run`, so the interpreter works in its worker thread while these servers
 * answer on this thread.
 */

/** One loopback server and the requests it saw (`METHOD /path`). */
interface Loopback {
  server: Server;
  port: number;
  seen: string[];
}

async function listen(server: Server): Promise<Loopback> {
  const seen: string[] = [];
  server.prependListener('request', (req: IncomingMessage) =>
    seen.push(`${req.method} ${req.url}`),
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

/** The routes of the allow-listed plain-http server. */
function routes(req: IncomingMessage, res: ServerResponse): void {
  // A client that stops reading (the body cap) resets the socket; that is expected here.
  res.on('error', () => undefined);
  req.socket.on('error', () => undefined);
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    if (req.url === '/hello') {
      res.writeHead(200, { 'X-World': 'loopback', 'Content-Type': 'text/plain' });
      res.end('hello over http');
    } else if (req.url === '/echo') {
      res.writeHead(201, { 'Content-Type': 'text/plain' });
      res.end(
        `${req.method} ${req.url} ${req.headers['content-type'] ?? '-'} ${req.headers['x-trace'] ?? '-'} ${body}`,
      );
    } else if (req.url === '/moved') {
      res.writeHead(302, { Location: '/hello' });
      res.end();
    } else if (req.url === '/big') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(Buffer.alloc(AILANG_NET_MAX_RESPONSE_BYTES + 1, 'a'));
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('no such page');
    }
  });
}

const HEADER_OF =
  'pure func headerOf(hs: [{name: string, value: string}], n: string) -> string =\n' +
  '  match hs { [] => "-", [h, ...rest] => if h.name == n then h.value else headerOf(rest, n) }\n';
const REPORT =
  'func report(m: string, url: string, hs: [{name: string, value: string}], body: string) -> () ! {IO, Net} =\n' +
  '  match httpRequest(m, url, hs, body) {\n' +
  '    Ok(r) => println(show(r.status) ++ " " ++ show(r.ok) ++ " " ++ headerOf(r.headers, "X-World") ++ " " ++ r.body),\n' +
  '    Err(e) => println(show(e))\n' +
  '  }\n';

/** A std/net program whose main runs `body`. */
function netProgram(name: string, body: string[]): string {
  return [
    `module ${name}`,
    'import std/io (println)',
    'import std/net (httpRequest, httpGet, httpPost)',
    HEADER_OF,
    REPORT,
    'export func main() -> () ! {IO, Net} {',
    body.join(';\n'),
    '}',
    '',
  ].join('\n');
}

describe('std/net against loopback servers (embedded toolchain)', () => {
  const tc = embeddedToolchain();
  let root: string;
  let plain: Loopback;
  let other: Loopback;
  let tls: Loopback;
  let ctx: AilangContext;
  let httpCtx: AilangContext;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'ailang-net-'));
    // A self-signed certificate for 127.0.0.1: no client trusts it, which is the point.
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-keyout', join(root, 'key.pem'), '-out', join(root, 'cert.pem'), '-days', '1'],
        ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    plain = await listen(createServer(routes));
    other = await listen(createServer(routes));
    tls = await listen(
      createTlsServer(
        { key: readFileSync(join(root, 'key.pem')), cert: readFileSync(join(root, 'cert.pem')) },
        routes,
      ),
    );
    const worktree = join(root, 'ws', 'ep1');
    mkdirSync(worktree, { recursive: true });
    mkdirSync(join(root, 'policies'));
    const at = (p: Loopback, path: string, scheme = 'http'): string =>
      `"${scheme}://127.0.0.1:${p.port}${path}"`;
    const files: Record<string, string> = {
      'exchange.ail': netProgram('exchange', [
        `  report("GET", ${at(plain, '/hello')}, [], "")`,
        `  report("POST", ${at(plain, '/echo')}, [{name: "Content-Type", value: "text/csv"}, {name: "X-Trace", value: "t-1"}], "a,b")`,
        `  println(httpPost(${at(plain, '/echo')}, "{\\"n\\":1}"))`,
        `  println(httpGet(${at(plain, '/hello')}))`,
        `  report("GET", ${at(plain, '/nowhere')}, [], "")`,
      ]),
      'redirect.ail': netProgram('redirect', [`  report("GET", ${at(plain, '/moved')}, [], "")`]),
      'refused.ail': netProgram('refused', [
        `  report("GET", ${at(other, '/hello')}, [], "")`,
        `  report("GET", "http://localhost:${plain.port}/hello", [], "")`,
        `  report("GET", "http://127.0.0.2:${plain.port}/hello", [], "")`,
        `  report("GET", "http://agent@127.0.0.1:${plain.port}/hello", [], "")`,
        `  report("GET", "http://127.0.0.1/hello", [], "")`,
        `  report("PUT", ${at(plain, '/echo')}, [], "x")`,
        `  report("GET", ${at(plain, '/hello')}, [{name: "Host", value: "example.com"}], "")`,
        `  report("GET", ${at(plain, '/hello')}, [{name: "X-Bad", value: "a\\r\\nb"}], "")`,
        `  report("GET", "file:///etc/hosts", [], "")`,
        `  report("GET", "gopher2://127.0.0.1:${plain.port}/", [], "")`,
      ]),
      'plain.ail': netProgram('plain', [`  println(httpGet(${at(plain, '/hello')}))`]),
      'tls.ail': netProgram('tls', [`  report("GET", ${at(tls, '/hello', 'https')}, [], "")`]),
      'mismatch.ail': netProgram('mismatch', [
        `  report("GET", ${at(plain, '/hello', 'https')}, [], "")`,
      ]),
      'big.ail': netProgram('big', [`  report("GET", ${at(plain, '/big')}, [], "")`]),
    };
    for (const [f, text] of Object.entries(files)) writeFileSync(join(worktree, f), text);
    // Generous bounds: each exchange starts a Node child, and the machine may be busy.
    const policy = episodePolicy(worktree, { timeout_ms: 30_000 });
    const policyPath = join(root, 'policies', 'ep1.toml');
    writeFileSync(policyPath, renderPolicyToml(policy));
    ctx = {
      worktree,
      policy,
      policyPath,
      runAllowCaps: ['Net'],
      netAllow: [`127.0.0.1:${plain.port}`, `127.0.0.1:${tls.port}`],
      deadlineMs: 40_000,
    };
    httpCtx = { ...ctx, netAllowHttp: true };
  });
  afterAll(async () => {
    for (const s of [plain, other, tls]) {
      s?.server.closeAllConnections();
      await new Promise((done) => s?.server.close(done));
    }
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const s of [plain, other, tls]) s.seen.length = 0;
  });

  const run = (c: AilangContext, path: string) => tc.run(c, { path, caps: ['IO', 'Net'] });

  it('GETs and POSTs an allow-listed IP:PORT over plain http when the operator allows it', async () => {
    const out = await run(httpCtx, 'exchange.ail');
    expect([out.admitted, out.exit_code, out.limit, out.stdout]).toEqual([
      true,
      0,
      null,
      [
        '200 true loopback hello over http',
        '201 true - POST /echo text/csv t-1 a,b',
        'POST /echo application/json - {"n":1}',
        'hello over http',
        '404 false - no such page',
        '',
      ].join('\n'),
    ]);
    expect(plain.seen).toEqual([
      'GET /hello',
      'POST /echo',
      'POST /echo',
      'GET /hello',
      'GET /nowhere',
    ]);
    expect(out.policy).toEqual({
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      security_mode: 'restricted',
      caps: ['FS', 'IO', 'Net'],
      net_allow: [`127.0.0.1:${plain.port}`, `127.0.0.1:${tls.port}`],
    });
  });

  it('refuses plain http when the operator does not allow it, before any request', async () => {
    const refused = await run(ctx, 'plain.ail');
    const allowed = await run(httpCtx, 'plain.ail');
    expect([refused.exit_code, refused.stdout, allowed.stdout]).toEqual([
      0,
      'E_NET_REQUEST_FAILED: E_NET_PROTOCOL_BLOCKED: http:// blocked (use --net-allow-http to enable)\n',
      'hello over http\n',
    ]);
    expect(plain.seen).toEqual(['GET /hello']);
    // The two are different policies: net_allow_http is part of the rendered (digested) bytes.
    expect((refused.policy as { digest: string }).digest).not.toBe(
      (allowed.policy as { digest: string }).digest,
    );
  });

  it('refuses every target, method and header the policy does not allow, sending nothing', async () => {
    const out = await run(httpCtx, 'refused.ail');
    expect([out.exit_code, out.stdout]).toEqual([
      0,
      [
        `DisallowedHost(127.0.0.1:${other.port})`,
        `DisallowedHost(localhost:${plain.port})`,
        `DisallowedHost(127.0.0.2:${plain.port})`,
        `DisallowedHost(agent@127.0.0.1:${plain.port})`,
        'DisallowedHost(127.0.0.1)',
        'Transport(E_NET_METHOD_BLOCKED: method "PUT" is not supported (GET, POST))',
        'InvalidHeader(Host)',
        'InvalidHeader(X-Bad)',
        'Transport(E_NET_PROTOCOL_BLOCKED: unsupported protocol: file)',
        'Transport(E_NET_PROTOCOL_BLOCKED: unknown protocol: gopher2)',
        '',
      ].join('\n'),
    ]);
    expect([plain.seen, other.seen, tls.seen]).toEqual([[], [], []]);
  });

  it('does not follow a redirect: one request, answered as a refusal', async () => {
    const out = await run(httpCtx, 'redirect.ail');
    expect(out.stdout).toBe(
      'Transport(E_NET_REDIRECT_REFUSED: status 302; redirects are not followed under this policy)\n',
    );
    expect(plain.seen).toEqual(['GET /moved']);
  });

  it('verifies the certificate of an https endpoint: a self-signed one is a transport failure', async () => {
    const out = await run(ctx, 'tls.ail');
    expect([out.exit_code, out.stdout, tls.seen]).toEqual([
      0,
      'Transport(self-signed certificate)\n',
      [],
    ]);
  });

  it('answers https to a plain-http endpoint with a clean Transport text, not OpenSSL internals', async () => {
    const out = await run(ctx, 'mismatch.ail');
    expect([out.exit_code, out.stdout]).toEqual([
      0,
      'Transport(http: server gave HTTP response to HTTPS client)\n',
    ]);
  });

  it('stops reading a response body over the cap (5 MiB)', async () => {
    const out = await run(httpCtx, 'big.ail');
    expect([out.exit_code, out.stdout, plain.seen]).toEqual([
      0,
      `BodyTooLarge(response body exceeds ${AILANG_NET_MAX_RESPONSE_BYTES} bytes)\n`,
      ['GET /big'],
    ]);
  });

  it('is refused before any process without the operator gates (world-spec §3.5)', async () => {
    await expect(run({ ...httpCtx, runAllowCaps: [] }, 'plain.ail')).rejects.toThrow(
      new OperatorGateError(
        'capability "Net" is not enabled by the operator: the daemon must be started with --run-allow-caps Net',
        'Net',
      ),
    );
    await expect(run({ ...httpCtx, netAllow: [] }, 'plain.ail')).rejects.toThrow(
      new OperatorGateError(
        'capability "Net" needs an operator network allowance: the daemon must be started with --run-net-allow 127.0.0.1:PORT',
        'Net',
      ),
    );
    expect(plain.seen).toEqual([]);
  });
});
