import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { eventually, testNatsUrl, uniquePrefix } from '@world/testing';
import { InProcessBus, captureLogs, type TransportConfig } from '@world/runtime';
import { hex, ref, startHarness, type Harness } from './fake-world.js';

// packages/runtime/README.md: the gateway serves /livez, /readyz and /metrics on its main port,
// counts requests by route template and status, continues the caller's W3C trace and logs one
// line per request.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const SESSION = hex('a');

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

const modes: Array<[string, () => TransportConfig, Record<string, string>]> = [
  [
    'nats',
    () => ({ kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('gw-ops') }),
    { nats: 'ok' },
  ],
  ['in-process', () => ({ kind: 'inproc', bus: new InProcessBus() }), {}],
];

describe.each(modes)('the gateway operations routes over %s', (_mode, makeTransport, checks) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ transport: makeTransport(), publicReads: true });
    h.world.addSession(SESSION, [['Workspace.Read', 5]]);
  });

  afterAll(async () => {
    await h.close();
  });

  beforeEach(() => exporter.reset());

  it('answers /livez with 200 ok', async () => {
    const res = await fetch(`${h.gateway.url}/livez`);
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
  });

  it('answers /readyz with the checks that apply to this transport', async () => {
    const res = await fetch(`${h.gateway.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks });
  });

  it('counts requests by route template and status code in /metrics', async () => {
    const base = h.gateway.url;
    expect((await fetch(`${base}/v1/health`)).status).toBe(200);
    expect((await fetch(`${base}/v1/health`)).status).toBe(200);
    expect((await fetch(`${base}/v1/objects/${ref('9')}`)).status).toBe(404);
    expect((await fetch(`${base}/v1/objects/${ref('8')}`)).status).toBe(404);
    expect((await fetch(`${base}/no/such/route/${hex('7')}`)).status).toBe(404);
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const lines = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith(`world_http_requests_total{replica="${h.gateway.replica}"`));
    const replica = `replica="${h.gateway.replica}"`;
    expect(lines).toEqual(
      expect.arrayContaining([
        `world_http_requests_total{${replica},route="/v1/health",status="200"} 2`,
        `world_http_requests_total{${replica},route="/v1/objects/:ref",status="404"} 2`,
        `world_http_requests_total{${replica},route="(unmatched)",status="404"} 1`,
      ]),
    );
    expect(lines.some((l) => l.includes(hex('7')) || l.includes(ref('9')))).toBe(false);
  });

  it('continues the caller trace: the HTTP span is the child of its traceparent, and the planner hop the child of the HTTP span', async () => {
    const res = await fetch(`${h.gateway.url}/v1/health`, {
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01` },
    });
    expect(res.status).toBe(200);
    const spans = await eventually(
      () => {
        const done = exporter.getFinishedSpans();
        return done.length === 2 ? done : undefined;
      },
      5_000,
      'two finished spans',
    );
    const http = spans.find((s) => s.name === 'GET /v1/health')!;
    const hop = spans.find((s) => s.name === 'planner.info')!;
    expect(http.spanContext().traceId).toBe(TRACE_ID);
    expect(http.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(hop.spanContext().traceId).toBe(TRACE_ID);
    expect(hop.parentSpanContext?.spanId).toBe(http.spanContext().spanId);
    expect(http.attributes).toEqual({
      'world.service': 'gateway',
      'world.replica': h.gateway.replica,
      'http.request.method': 'GET',
      'http.route': '/v1/health',
      'http.response.status_code': 200,
    });
  });

  it('starts a new trace for a request without a traceparent', async () => {
    expect((await fetch(`${h.gateway.url}/v1/health`)).status).toBe(200);
    const spans = await eventually(
      () => {
        const done = exporter.getFinishedSpans();
        return done.length === 2 ? done : undefined;
      },
      5_000,
      'two finished spans',
    );
    const http = spans.find((s) => s.name === 'GET /v1/health')!;
    expect(http.parentSpanContext).toBeUndefined();
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it('logs one line per request, and probes and scrapes only at debug', async () => {
    const logs = captureLogs('info');
    try {
      await fetch(`${h.gateway.url}/v1/health`);
      await fetch(`${h.gateway.url}/readyz`);
      await fetch(`${h.gateway.url}/metrics`);
      const lines = await eventually(
        () => {
          const found = logs.records.filter((r) => r.msg === 'http request');
          return found.length === 1 ? found : undefined;
        },
        5_000,
        'one request line',
      );
      expect(lines[0]).toMatchObject({
        service: 'gateway',
        replica: h.gateway.replica,
        method: 'GET',
        route: '/v1/health',
        status: 200,
      });
    } finally {
      logs.stop();
    }
  });
});
