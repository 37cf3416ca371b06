import { httpExchangeSync } from '../../runtime/http-sync.js';
import {
  UNIT_V,
  err,
  listFrom,
  listItems,
  ok,
  type BuiltinImpl,
  type CtorValue,
  type ListValue,
  type RuntimeApi,
  type Value,
} from '../../runtime/values.js';
import { int, str } from './common.js';

/**
 * std/clock and std/net (stdlib/catalogue/services.ts). `sleep` blocks the run's thread and is
 * bounded by the run's time limit (the host refuses a pause longer than the whole limit, and the
 * supervisor stops the run at the limit). `_net_httpRequest` reaches only an endpoint the policy
 * lists: the URL's authority must be exactly one of `net_allow`'s `IP:PORT` literals (the
 * scheme's default port when none is written), plain http only when the policy allows it; no
 * userinfo, no redirects followed, GET and POST only, hop-by-hop and Host headers refused
 * (world-spec §3.5 capability variants; ailang.md §2.3 std/net).
 */

const ctor = (name: string, ...args: Value[]): CtorValue => ({ k: 'ctor', name, args });
const record = (entries: [string, Value][]): Value => ({ k: 'record', fields: new Map(entries) });

const METHODS = new Set(['GET', 'POST']);
const BLOCKED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };
// The schemes the real validateProtocol calls unsupported; any other non-http(s) one is unknown.
const UNSUPPORTED_SCHEMES = new Set(['file', 'ftp', 'data', 'gopher', '']);

/**
 * The refusal of a request, as std/net's NetError, or the allowed `IP:PORT` it reaches. The
 * protocol texts are the real toolchain's (its std/net validateProtocol): https always, http only
 * with the policy's `net_allow_http`, every other scheme blocked.
 */
function endpointOf(rt: RuntimeApi, method: string, url: string): Value | string {
  const net = rt.host.net;
  if (!METHODS.has(method))
    return ctor(
      'Transport',
      `E_NET_METHOD_BLOCKED: method ${JSON.stringify(method)} is not supported (GET, POST)`,
    );
  const scheme = (/^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1] ?? '').toLowerCase();
  if (scheme === 'http' && !net.allowHttp)
    return ctor(
      'Transport',
      'E_NET_PROTOCOL_BLOCKED: http:// blocked (use --net-allow-http to enable)',
    );
  if (scheme !== 'http' && scheme !== 'https')
    return ctor(
      'Transport',
      `E_NET_PROTOCOL_BLOCKED: ${UNSUPPORTED_SCHEMES.has(scheme) ? 'unsupported' : 'unknown'} protocol: ${scheme}`,
    );
  // Only the `scheme://authority` form names an endpoint; `http:x` has no authority to allow.
  const m = /^[^:]+:\/\/([^/?#]*)(?:[/?#]|$)/.exec(url);
  const authority = m?.[1] ?? '';
  const hostPort = authority.includes(':') ? authority : `${authority}:${DEFAULT_PORT[scheme]}`;
  if (m === null || authority.includes('@') || !net.allow.includes(hostPort))
    return ctor('DisallowedHost', authority);
  return hostPort;
}

function headerRefusal(headers: [string, string][]): Value | null {
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (
      !TOKEN.test(name) ||
      /[\r\n\0]/.test(value) ||
      BLOCKED_HEADERS.has(lower) ||
      lower.startsWith('proxy-')
    )
      return ctor('InvalidHeader', name);
  }
  return null;
}

/** `_net_httpRequest(method, url, headers, body) -> Result[HttpResponse, NetError] ! {Net}`. */
function httpRequest(
  rt: RuntimeApi,
  method: string,
  url: string,
  headers: [string, string][],
  body: string,
): Value {
  rt.host.charge('Net');
  const endpoint = endpointOf(rt, method, url);
  const refusal = typeof endpoint === 'string' ? headerRefusal(headers) : endpoint;
  if (refusal !== null) return err(refusal);
  const out = httpExchangeSync({
    method,
    url,
    endpoint: endpoint as string,
    headers,
    body,
    timeoutMs: rt.host.net.timeoutMs,
    maxBytes: rt.host.net.maxResponseBytes,
  });
  if (!out.ok)
    return err(ctor(out.kind === 'too_large' ? 'BodyTooLarge' : 'Transport', out.message));
  if (
    out.status >= 300 &&
    out.status < 400 &&
    out.headers.some(([n]) => n.toLowerCase() === 'location')
  )
    return err(
      ctor(
        'Transport',
        `E_NET_REDIRECT_REFUSED: status ${out.status}; redirects are not followed under this policy`,
      ),
    );
  return ok(
    record([
      ['status', BigInt(out.status)],
      [
        'headers',
        listFrom(
          out.headers.map(([n, v]) =>
            record([
              ['name', n],
              ['value', v],
            ]),
          ),
        ),
      ],
      ['body', out.body],
      ['ok', out.status >= 200 && out.status <= 299],
    ]),
  );
}

function pairs(v: Value): [string, string][] {
  return listItems(v as ListValue).map((h) => {
    const f = (h as { fields: Map<string, Value> }).fields;
    return [str(f.get('name')!), str(f.get('value')!)];
  });
}

// httpGet / httpPost answer the body, or one text per NetError (the real wrappers' texts).
const ERROR_TEXT: Record<string, string> = {
  Transport: 'E_NET_REQUEST_FAILED',
  DisallowedHost: 'E_NET_DOMAIN_BLOCKED',
  InvalidHeader: 'E_NET_INVALID_HEADER',
  BodyTooLarge: 'E_NET_BODY_TOO_LARGE',
};

function bodyOrText(r: Value): Value {
  const c = r as CtorValue;
  if (c.name === 'Ok') return (c.args[0] as { fields: Map<string, Value> }).fields.get('body')!;
  const e = c.args[0] as CtorValue;
  return `${ERROR_TEXT[e.name]}: ${str(e.args[0]!)}`;
}

export const SERVICE_IMPLS: Record<string, BuiltinImpl> = {
  _clock_now: (_a, rt) => (rt.host.charge('Clock'), BigInt(Date.now())),
  _clock_sleep: ([ms], rt) => (rt.host.charge('Clock'), rt.host.sleep(int(ms!)), UNIT_V),
  _net_httpRequest: ([m, u, h, b], rt) => httpRequest(rt, str(m!), str(u!), pairs(h!), str(b!)),
  'std/net.httpGet': ([u], rt) => bodyOrText(httpRequest(rt, 'GET', str(u!), [], '')),
  'std/net.httpPost': ([u, b], rt) =>
    bodyOrText(httpRequest(rt, 'POST', str(u!), [['Content-Type', 'application/json']], str(b!))),
};
