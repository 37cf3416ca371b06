/**
 * Traces an operator can see (README "Traces"): `world start` with the OpenTelemetry SDK's standard
 * variables exports through the real OTLP/HTTP exporter to a receiver this test runs on
 * loopback. One MCP tools/call sent by the official MCP SDK client with
 * `params._meta.traceparent` yields one trace — the caller's — with spans of all four services,
 * named and attributed by the OpenTelemetry MCP and GenAI conventions, and no arguments or
 * results among the attributes.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eventually } from '@world/testing';
import { requireBuiltCli, startCli, type RunningCli } from '../support/cli.js';

const E2E_TIMEOUT_MS = 300_000;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** The attribute map of an OTLP/JSON span (each value's one typed field). */
const attrs = (span: OtlpSpan): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]));

describe('OpenTelemetry export (README "Traces")', () => {
  let receiver: Server;
  let endpoint: string;
  const spans: OtlpSpan[] = [];
  const services: string[] = [];
  let home: string;
  let cli: RunningCli | undefined;

  beforeAll(async () => {
    requireBuiltCli();
    home = await mkdtemp(join(tmpdir(), 'world-otel-'));
    // An OTLP/HTTP receiver: POST /v1/traces with OTLP/JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json).
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            resourceSpans: Array<{
              resource: { attributes: OtlpSpan['attributes'] };
              scopeSpans: Array<{ spans: OtlpSpan[] }>;
            }>;
          };
          for (const rs of body.resourceSpans) {
            const name = rs.resource.attributes.find((a) => a.key === 'service.name');
            services.push(String(Object.values(name?.value ?? {})[0]));
            for (const ss of rs.scopeSpans) spans.push(...ss.spans);
          }
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });

  afterAll(async () => {
    await cli?.stop();
    await new Promise((resolve) => receiver.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  it(
    'exports one MCP call as one trace with spans from gateway, planner, broker and ledger',
    async () => {
      cli = startCli(['start'], {
        WORLD_HOME: home,
        WORLD_BIND: '127.0.0.1:0',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'world-e2e',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
      await eventually(
        () => (cli!.lines.some((l) => l.startsWith('  MCP endpoint:')) ? true : undefined),
        120_000,
        `the banner (stderr so far:\n${cli.stderr().slice(-2000)})`,
      );
      const url = cli.lines
        .find((l) => l.startsWith('  MCP endpoint:'))!
        .split(/\s+/)
        .pop()!;
      const token = (await readFile(join(home, 'demo.session'), 'utf8')).trim();
      const client = new Client({ name: 'otel-e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const result = await client.callTool({
        name: 'ailang-read',
        arguments: { path: 'hello.ail' },
        _meta: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, 'world/taskId': 'otel-1' },
      });
      await client.close();
      expect(result.isError).toBeUndefined();

      const commit = () => spans.find((s) => s.traceId === TRACE_ID && s.name === 'commit');
      await eventually(() => commit(), 30_000, 'the commit span of the call');
      const trace = spans.filter((s) => s.traceId === TRACE_ID);
      const byName = (name: string) => trace.filter((s) => s.name === name);

      const server = byName('tools/call ailang-read');
      expect(server.length).toBe(1);
      expect([server[0]!.parentSpanId, server[0]!.kind]).toEqual([CALLER_SPAN, 2]);
      const invocationId = 'mcp:demo:otel-1';
      expect(attrs(server[0]!)).toEqual({
        'world.service': 'gateway',
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2025-11-25',
        'jsonrpc.request.id': expect.any(String),
        'gen_ai.tool.name': 'ailang-read',
        'gen_ai.operation.name': 'execute_tool',
        'world.invocation_id': invocationId,
        'world.episode': 'demo',
        'world.entry_index': 1,
      });
      const tool = byName('execute_tool ailang-read');
      expect(tool.length).toBe(1);
      expect(attrs(tool[0]!)).toEqual({
        'world.invocation_id': invocationId,
        'world.episode': 'demo',
        'gen_ai.tool.name': 'ailang-read',
        'gen_ai.operation.name': 'execute_tool',
        'world.entry_index': 1,
      });
      for (const phase of ['plan', 'execute', 'commit']) {
        expect([phase, byName(phase).map((s) => s.parentSpanId)]).toEqual([
          phase,
          [tool[0]!.spanId],
        ]);
      }
      const served = new Set(trace.map((s) => attrs(s)['world.service']).filter(Boolean));
      expect([...served].sort()).toEqual(['broker', 'gateway', 'ledger', 'planner']);
      // Identifiers only: neither the arguments nor the output are span attributes.
      const values = trace.flatMap((s) => Object.values(attrs(s)).map(String));
      expect(values.filter((v) => v.includes('hello.ail') || v.includes('module hello'))).toEqual(
        [],
      );
      expect([...new Set(services)]).toEqual(['world-e2e']);
    },
    E2E_TIMEOUT_MS,
  );
});
