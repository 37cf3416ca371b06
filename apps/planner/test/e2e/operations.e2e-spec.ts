import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { captureLogs, type LogCapture } from '@world/runtime';
import { eventually } from '@world/testing';
import { sample, scrape, startOpsSystem, type Mode, type OpsSystem } from './system.js';

// The operations contract (packages/runtime/README.md), end to end: one MCP tools/call is one trace
// across gateway → planner → broker → ledger, every service writes lines carrying its invocation
// id, /metrics counts calls by outcome exactly, and an MCP EffectsUnrecorded leaves the operator a
// line with the record refs (world-internals §5.5) — in both run modes (DESIGN.md §5).

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const HELLO = 'module hello\n\nexport func main() -> () ! {IO} {\n  println("hello")\n}\n';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const SERVICES = ['broker', 'gateway', 'ledger', 'planner'];

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

describe.each<Mode>(['embedded', 'distributed'])('operations of a World in %s mode', (mode) => {
  let w: OpsSystem;
  let logs: LogCapture;

  beforeAll(async () => {
    w = await startOpsSystem(mode);
    await w.episode('ops-ep', { 'hello.ail': HELLO });
  });

  afterAll(async () => {
    await w?.close();
  });

  beforeEach(() => {
    exporter.reset();
    logs = captureLogs('info');
  });

  afterEach(() => logs.stop());

  /** The spans of one trace, once its planner.invoke span and the lease release have ended. */
  async function traceOf(traceId: string): Promise<ReadableSpan[]> {
    return eventually(
      () => {
        const spans = exporter
          .getFinishedSpans()
          .filter((s) => s.spanContext().traceId === traceId);
        const names = spans.map((s) => s.name);
        return names.includes('POST /mcp') && names.includes('broker.episode.releaseAsync')
          ? spans
          : undefined;
      },
      10_000,
      `the spans of trace ${traceId}`,
    );
  }

  it('makes one MCP tools/call one trace across the four services, continuing the caller trace', async () => {
    const { token } = await w.session('ops-ep', [
      { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
    ]);
    const answer = await w.mcpCall(
      token,
      'ailang-read',
      { path: 'hello.ail' },
      { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
    );
    expect(answer.result?.structuredContent.ok).toBe(true);
    const spans = await traceOf(TRACE_ID);
    const nameOf = new Map(spans.map((s) => [s.spanContext().spanId, s.name]));
    // The span tree (README "Traces"): the gateway's MCP server span `tools/call <tool>` sits
    // between its HTTP span and planner.invoke (the caller's trace came as the HTTP header, so the
    // MCP span continues the HTTP span); the planner's `execute_tool <tool>` span holds the phase
    // spans, each the parent of the hop it sends. [span, parent span, world.service]: phase spans
    // are the planner's own, inside planner.invoke, and carry no service attribute. Lease renewals
    // (broker.episode.renew, one every EPISODE_LEASE_RENEW_MS while the call holds the lease) come
    // only when the machine is slow: their count is a timing, not part of the tree, but each one
    // hangs under the call's execute_tool span.
    const RENEW = 'broker.episode.renew';
    expect(
      spans.filter((s) => s.name === RENEW).map((s) => nameOf.get(s.parentSpanContext!.spanId)),
    ).toEqual(spans.filter((s) => s.name === RENEW).map(() => 'execute_tool ailang-read'));
    const tree = spans
      .filter((s) => s.name !== RENEW)
      .map((s) => [
        s.name,
        nameOf.get(s.parentSpanContext?.spanId ?? '') ?? s.parentSpanContext?.spanId,
        s.attributes['world.service'],
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(tree).toEqual([
      ['broker.effect.execute', 'execute', 'broker'],
      ['broker.episode.releaseAsync', 'execute_tool ailang-read', 'broker'],
      ['broker.session.resolve', 'POST /mcp', 'broker'],
      ['commit', 'execute_tool ailang-read', undefined],
      ['execute', 'execute_tool ailang-read', undefined],
      ['execute_tool ailang-read', 'planner.invoke', undefined],
      ['ledger.commit', 'commit', 'ledger'],
      ['plan', 'execute_tool ailang-read', undefined],
      ['planner.invoke', 'tools/call ailang-read', 'planner'],
      ['POST /mcp', CALLER_SPAN, 'gateway'],
      ['tools/call ailang-read', 'POST /mcp', 'gateway'],
    ]);
    expect([...new Set(spans.map((s) => s.attributes['world.service']))].sort()).toEqual([
      ...SERVICES,
      undefined,
    ]);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([TRACE_ID]));
    const invocationId = spans.find((s) => s.name === 'planner.invoke')!.attributes[
      'world.invocation_id'
    ];
    expect(invocationId).toMatch(/^mcp:ops-ep:[0-9a-f]{64}$/);
    // Every span carries the call's id but the session lookup, which runs before the call has one.
    expect(
      spans
        .filter((s) => s.attributes['world.invocation_id'] !== invocationId)
        .map((s) => [s.name, s.attributes['world.invocation_id']]),
    ).toEqual([['broker.session.resolve', undefined]]);
  });

  it('writes lines carrying the call invocation id from each of the four services', async () => {
    const { token } = await w.session('ops-ep', [
      { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
    ]);
    const answer = await w.mcpCall(token, 'ailang-read', { path: 'hello.ail' });
    expect(answer.result?.structuredContent.ok).toBe(true);
    const committed = await eventually(
      () => logs.records.find((r) => r.msg === 'call committed'),
      5_000,
      'the planner line',
    );
    const invocationId = committed.invocationId as string;
    expect(invocationId).toMatch(/^mcp:ops-ep:[0-9a-f]{64}$/);
    const lines = await eventually(
      () => {
        const mine = logs.records.filter((r) => r.invocationId === invocationId);
        return mine.some((r) => r.msg === 'http request') ? mine : undefined;
      },
      5_000,
      'the gateway line',
    );
    const byService = (service: string) =>
      lines.filter((r) => r.service === service).map((r) => r.msg);
    expect(byService('gateway')).toContain('http request');
    expect(byService('planner')).toContain('call committed');
    expect(byService('broker')).toContain('effect executed');
    expect(byService('ledger')).toContain('entry committed');
    expect([...new Set(lines.map((r) => r.service))].sort()).toEqual(SERVICES);
    const executed = lines.find((r) => r.msg === 'effect executed')!;
    expect(executed).toMatchObject({
      replica: w.broker.replica,
      invocationId,
      episodeId: 'ops-ep',
      effect: 'Workspace.Read',
      status: 'ok',
    });
    expect(Number.isInteger(executed.ordinal)).toBe(true);
    expect(JSON.stringify(logs.records)).not.toContain(token);
  });

  it('counts 2 ok, 1 refused and 1 denied calls, their effects, phases and the ledger head on /metrics', async () => {
    await w.episode('ops-metrics', { 'hello.ail': HELLO });
    const { token } = await w.session('ops-metrics', [
      { effect: 'Workspace.Read', scope: 'worktree', budget: 2 },
    ]);
    const planner = { replica: w.planner.replica };
    const broker = { replica: w.broker.replica };
    const calls = (outcome: string) => ({
      ...planner,
      tool: 'ailang-read',
      surface: 'mcp',
      outcome,
    });
    const effects = (status: string) => ({ ...broker, effect: 'Workspace.Read', status });
    const read = async () => ({
      gateway: await scrape(w.gateway.url),
      planner: await scrape(w.health.planner),
      broker: await scrape(w.health.broker),
    });
    const before = await read();

    expect(
      (await w.mcpCall(token, 'ailang-read', { path: 'hello.ail' })).result?.structuredContent.ok,
    ).toBe(true);
    expect(
      (await w.mcpCall(token, 'ailang-read', { path: 'hello.ail' })).result?.structuredContent.ok,
    ).toBe(true);
    expect(
      (await w.mcpCall(token, 'ailang-read', { path: 'hello.ail', limit: 5 })).result
        ?.structuredContent.ok,
    ).toBe(false);
    const denied = (await w.mcpCall(token, 'ailang-read', { path: 'hello.ail' })).result
      ?.structuredContent;
    expect((denied?.world as { effects: Array<{ status: string }> }).effects[0]!.status).toBe(
      'denied',
    );

    const after = await read();
    const delta = (
      scraped: 'gateway' | 'planner' | 'broker',
      name: string,
      labels: Record<string, string>,
    ) => sample(after[scraped], name, labels) - sample(before[scraped], name, labels);
    for (const scraped of ['gateway', 'planner'] as const) {
      expect({
        ok: delta(scraped, 'world_calls_total', calls('ok')),
        refused: delta(scraped, 'world_calls_total', calls('refused')),
        denied: delta(scraped, 'world_calls_total', calls('denied')),
        failed: delta(scraped, 'world_calls_total', calls('failed')),
        unrecorded: delta(scraped, 'world_calls_total', calls('unrecorded')),
      }).toEqual({ ok: 2, refused: 1, denied: 1, failed: 0, unrecorded: 0 });
    }
    expect({
      plan: delta('planner', 'world_phase_seconds_count', { ...planner, phase: 'plan' }),
      commit: delta('planner', 'world_phase_seconds_count', { ...planner, phase: 'commit' }),
      finish: delta('planner', 'world_phase_seconds_count', { ...planner, phase: 'finish' }),
    }).toEqual({ plan: 4, commit: 4, finish: 0 });
    expect({
      ok: delta('broker', 'world_effects_total', effects('ok')),
      denied: delta('broker', 'world_effects_total', effects('denied')),
      failed: delta('broker', 'world_effects_total', effects('failed')),
      budgetDenials: delta('broker', 'world_budget_denials_total', {
        ...broker,
        effect: 'Workspace.Read',
      }),
      lease: delta('broker', 'world_phase_seconds_count', { ...broker, phase: 'lease' }),
      execute: delta('broker', 'world_phase_seconds_count', { ...broker, phase: 'execute' }),
      leaseWaits: delta('broker', 'world_lease_waits_total', broker),
      takeovers: delta('broker', 'world_lease_takeovers_total', broker),
    }).toEqual({
      ok: 2,
      denied: 1,
      failed: 0,
      budgetDenials: 1,
      lease: 3,
      execute: 2,
      leaseWaits: 0,
      takeovers: 0,
    });
    expect(
      delta('gateway', 'world_http_requests_total', {
        replica: w.gateway.replica,
        route: '/mcp',
        status: '200',
      }),
    ).toBe(4);

    const head = await w.rpc.request('ledger.head', {}, { timeoutMs: 5_000 });
    const ledger = await scrape(w.health.ledger);
    expect(sample(ledger, 'world_ledger_head_index', { replica: w.ledger.replica })).toBe(
      head.entryIndex,
    );
  });

  it('answers /readyz on every health port with the checks of its service and, for the ledger and broker, their integrity scans', async () => {
    const ready = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`)).json();
    const nats = mode === 'distributed' ? { nats: 'ok' } : {};
    // The services that own hashed data also show their start-up integrity scan (world-spec §2.18).
    const clean = {
      state: 'clean',
      scanned: expect.any(Number),
      mismatches: 0,
      problems: [],
      complete: true,
    };
    expect(await ready(w.health.ledger.port)).toEqual({
      status: 'ready',
      checks: { database: 'ok', ...nats },
      integrity: { ledger: clean },
    });
    expect(await ready(w.health.broker.port)).toEqual({
      status: 'ready',
      checks: { database: 'ok', ...nats },
      integrity: { broker: clean },
    });
    expect(await ready(w.health.planner.port)).toEqual({ status: 'ready', checks: nats });
    expect(await ready(w.health.gateway.port)).toEqual({ status: 'ready', checks: nats });
  });

  // Last: it stops the ledger.
  it('logs the operator line with the effect record refs when an MCP call ends EffectsUnrecorded, and counts it unrecorded', async () => {
    const { token } = await w.session('ops-ep', [
      { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
    ]);
    const before = await scrape(w.health.planner);
    w.beforeNextRead(() => w.ledger.close());
    const answer = await w.mcpCall(token, 'ailang-read', { path: 'hello.ail' });
    expect(answer.error).toEqual({ code: -32603, message: 'host callback failed' });
    const line = await eventually(
      () =>
        logs.records.find(
          (r) => typeof r.msg === 'string' && r.msg.startsWith('mcp refusal: tools/call mcp:'),
        ),
      5_000,
      'the operator line',
    );
    const records = line.effectRecords as string[];
    expect(records).toHaveLength(1);
    expect(records[0]).toMatch(/^sha256:[0-9a-f]{64}$/);
    const invocationId = line.invocationId as string;
    expect(line.msg).toMatch(
      new RegExp(`^mcp refusal: tools/call ${invocationId}: ".* records \\[${records[0]}\\]"$`),
    );
    expect(line).toMatchObject({ service: 'gateway', level: 50 });
    const executed = logs.records.find(
      (r) => r.msg === 'effect executed' && r.invocationId === invocationId,
    );
    expect(executed).toMatchObject({ status: 'ok', effect: 'Workspace.Read' });
    const after = await scrape(w.health.planner);
    const labels = {
      replica: w.planner.replica,
      tool: 'ailang-read',
      surface: 'mcp',
      outcome: 'unrecorded',
    };
    expect(
      sample(after, 'world_calls_total', labels) - sample(before, 'world_calls_total', labels),
    ).toBe(1);
  });
});
