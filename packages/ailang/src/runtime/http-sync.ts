import { execFileSync } from 'node:child_process';

/**
 * One HTTP exchange, synchronously, for std/net in the interpreter's worker thread: a short-lived
 * Node child process performs it (Node has no synchronous HTTP client) and answers one JSON line.
 * Redirects are never followed; the body is read up to a byte cap; the child ends itself at the
 * deadline. The caller has already checked the endpoint against the policy
 * (stdlib/impl/services.ts); the child checks again that the URL it parses reaches exactly that
 * endpoint, so no difference between the two parsers can send a request elsewhere.
 */

/** What to send. */
export interface HttpExchange {
  method: string;
  url: string;
  /** the allowed `IP:PORT` the URL must reach */
  endpoint: string;
  headers: [string, string][];
  body: string;
  /** the whole exchange's limit, ms */
  timeoutMs: number;
  /** the largest body read, bytes */
  maxBytes: number;
}

/** What came back. */
export type HttpOutcome =
  | { ok: true; status: number; headers: [string, string][]; body: string }
  | { ok: false; kind: 'transport' | 'too_large'; message: string };

// The child: one request, raw headers in wire order, body capped, one JSON line on stdout.
const CHILD = `
const req = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const done = (o) => { process.stdout.write(JSON.stringify(o)); process.exit(0); };
let u;
try { u = new URL(req.url); } catch (e) { done({ ok: false, kind: 'transport', message: e.message }); }
const tls = u.protocol === 'https:';
const reached = u.hostname + ':' + (u.port || (tls ? '443' : '80'));
if (reached !== req.endpoint) done({ ok: false, kind: 'transport', message: 'the URL reaches ' + reached + ', not ' + req.endpoint });
const lib = require(tls ? 'https' : 'http');
// Raw (array) headers get no defaults from Node: the child writes Host and the body's length,
// which the policy keeps programs from setting themselves.
const headers = ['Host', u.host, ...req.headers];
if (req.body !== '' || req.method === 'POST') headers.push('Content-Length', String(Buffer.byteLength(req.body)));
setTimeout(() => done({ ok: false, kind: 'transport', message: 'request timed out after ' + req.timeoutMs + ' ms' }), req.timeoutMs).unref();
const r = lib.request(u, { method: req.method, headers }, (res) => {
  const chunks = []; let size = 0;
  res.on('data', (c) => {
    size += c.length;
    if (size > req.maxBytes) done({ ok: false, kind: 'too_large', message: 'response body exceeds ' + req.maxBytes + ' bytes' });
    chunks.push(c);
  });
  res.on('end', () => {
    const h = []; for (let i = 0; i < res.rawHeaders.length; i += 2) h.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
    done({ ok: true, status: res.statusCode, headers: h, body: Buffer.concat(chunks).toString('utf8') });
  });
  res.on('error', (e) => done({ ok: false, kind: 'transport', message: e.message }));
});
r.on('error', (e) => done({ ok: false, kind: 'transport', message: e.message }));
r.end(req.body);
`;

// Room for the child's start-up on top of the exchange's own limit.
const CHILD_STARTUP_MS = 5_000;

/**
 * Performs one exchange.
 * @returns the response, or a transport / size failure (never throws for network failures)
 */
export function httpExchangeSync(x: HttpExchange): HttpOutcome {
  let out: string;
  try {
    out = execFileSync(process.execPath, ['-e', CHILD], {
      input: JSON.stringify({ ...x, headers: x.headers.flat() }),
      env: {},
      timeout: x.timeoutMs + CHILD_STARTUP_MS,
      maxBuffer: x.maxBytes * 2 + 64 * 1024,
      stdio: ['pipe', 'pipe', 'ignore'],
    }).toString('utf8');
  } catch (e) {
    return { ok: false, kind: 'transport', message: `request failed: ${(e as Error).message}` };
  }
  let outcome: HttpOutcome;
  try {
    outcome = JSON.parse(out) as HttpOutcome;
  } catch {
    return { ok: false, kind: 'transport', message: 'request failed: no answer' };
  }
  if (!outcome.ok && outcome.kind === 'transport')
    return { ...outcome, message: transportText(outcome.message) };
  return outcome;
}

// OpenSSL's error text inside Node's: `…:error:0A00010B:SSL routines:ssl3_get_record:wrong
// version number:../deps/openssl/…:350:`.
const OPENSSL_ERROR = /:error:[0-9A-Fa-f]+:[^:]*:[^:]*:([^:]+):/;

/**
 * The Transport text of a failed exchange: Node's OpenSSL error strings (library, function,
 * source file and line of the TLS stack) become one plain sentence. An https request answered
 * in plain http gets the text of the real toolchain's Go client (net/http: "http: server gave
 * HTTP response to HTTPS client"); any other TLS failure is `TLS handshake failed: <reason>`.
 * Messages without an OpenSSL error pass unchanged.
 */
function transportText(message: string): string {
  const m = OPENSSL_ERROR.exec(message);
  if (m === null) return message;
  const reason = m[1]!.trim();
  if (reason === 'wrong version number' || reason === 'packet length too long')
    return 'http: server gave HTTP response to HTTPS client';
  return `TLS handshake failed: ${reason}`;
}
