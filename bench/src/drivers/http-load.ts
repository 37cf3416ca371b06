/**
 * What the server can carry (issue 7): autocannon posting raw JSON-RPC tools/call, each
 * connection with its own session header (so 32 connections drive 32 episodes). Latencies are
 * taken per response from autocannon's `response` event (high-resolution, not its histogram).
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { FILE_NAME, RAW_PROTOCOL_VERSION } from '../config.js';
import type { ClientCredential } from '../targets/target.js';
import { toolCallParams, type DriverResult } from './driver.js';

/** autocannon's sample tick, ms. */
const SAMPLE_TICK_MS = 20;

/** The raw tools/call body (one JSON-RPC request). */
export const TOOL_CALL_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: toolCallParams(FILE_NAME),
});

/** The headers a 2025-11-25 Streamable HTTP client sends with a POST. */
export const MCP_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': RAW_PROTOCOL_VERSION,
};

/**
 * True when a tools/call answer (JSON or one SSE event) carries a result whose output is ok.
 * World and the baseline both answer `structuredContent: {ok: true, …}` for a read.
 */
export function isOkToolAnswer(body: string): boolean {
  const json = body.startsWith('{')
    ? body
    : body
        .split('\n')
        .find((l) => l.startsWith('data: '))
        ?.slice('data: '.length);
  if (json === undefined) return false;
  try {
    const parsed = JSON.parse(json) as { result?: { structuredContent?: { ok?: unknown } } };
    return parsed.result?.structuredContent?.ok === true;
  } catch {
    return false;
  }
}

/** One autocannon run. */
export interface HttpLoad {
  url: string;
  method: 'POST' | 'GET';
  /** one header set per connection (its session) */
  connections: ClientCredential[];
  amount: number;
  body?: string;
  /** paths to cycle through (GET scenarios); default the URL's path */
  paths?: string[];
  verify: (body: string) => boolean;
}

/** Runs autocannon for a fixed number of requests and collects each response's latency. */
export async function runHttpLoad(load: HttpLoad): Promise<DriverResult> {
  // autocannon reads amount 0 as "no limit" (a 10 s run): nothing to do instead.
  if (load.amount <= 0) return { latenciesMs: [], errors: 0, wallMs: 0, completed: 0, warmup: 0 };
  const latencies: number[] = [];
  let firstError: string | undefined;
  let next = 0;
  let pathIndex = 0;
  const url = new URL(load.url);
  const t0 = performance.now();
  let finish!: (result: autocannon.Result) => void;
  let fail!: (err: unknown) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: url.origin,
      connections: load.connections.length,
      amount: load.amount,
      timeout: 60,
      // autocannon checks for the end on each sample tick (1 s by default): tick often, so a
      // run of a few calls does not last a second.
      sampleInt: SAMPLE_TICK_MS,
      requests: [
        {
          method: load.method,
          path: url.pathname + url.search,
          body: load.body,
          ...(load.paths !== undefined && {
            setupRequest: (req: Record<string, unknown>) => ({
              ...req,
              path: load.paths![pathIndex++ % load.paths!.length],
            }),
          }),
        },
      ],
      setupClient: (client: autocannon.Client) => {
        const cred = load.connections[next++ % load.connections.length]!;
        client.setHeaders({ ...(load.method === 'POST' ? MCP_POST_HEADERS : {}), ...cred.headers });
      },
      verifyBody: (body: string) => {
        const ok = load.verify(body);
        if (!ok) firstError ??= body.slice(0, 300);
        return ok;
      },
    } as autocannon.Options,
    (err, result) => (err ? fail(err) : finish(result)),
  );
  let completed = 0;
  let lastAt = t0;
  instance.on(
    'response',
    (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      completed++;
      lastAt = performance.now();
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      // autocannon notices `amount` on its next 1-second tick: stop it as soon as the last answer
      // is in (after this answer's body check has run), so neither the window nor the run pads.
      if (completed === load.amount) setImmediate(() => instance.stop());
    },
  );
  const result = await done;
  // The window ends with the last answer, not when autocannon reports done.
  const wallMs = lastAt - t0;
  const transportErrors = result.errors + result.timeouts + result.non2xx;
  if (transportErrors > 0)
    firstError ??= `${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`;
  // A non-2xx answer fails verification too: count it once, as a mismatch.
  return {
    latenciesMs: latencies,
    errors: result.mismatches + result.errors + result.timeouts,
    wallMs,
    firstError,
    completed,
    warmup: 0,
  };
}
