import 'reflect-metadata';
import {
  Controller,
  Inject,
  Module,
  type DynamicModule,
  type INestMicroservice,
} from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { eventually, testNatsUrl, uniquePrefix } from '@world/testing';
import {
  InProcessBus,
  RPC,
  captureLogs,
  connectRpc,
  serviceLogger,
  startMicroservice,
  withCallContext,
  type LogCapture,
  type RpcClient,
  type TransportConfig,
} from '../../src/index.js';

// README "Logs" and "Tracing": the invocation id and the trace context cross every hop (NATS
// packets and the in-process bus alike); a closing server stops taking work and answers what it
// holds.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const INVOCATION = 'mcp:ep-trace:task-1';
const served: string[] = [];
let gate: { entered: boolean; release: () => void; opened: Promise<void> } | undefined;

function openGate() {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  gate = { entered: false, release, opened };
  return gate;
}

/** A "planner" whose planner.health asks the "ledger" for its head, logging on the way. */
function frontModule(rpc: RpcClient): DynamicModule {
  const log = serviceLogger('front');
  @Controller()
  class FrontController {
    constructor(@Inject(RPC) private readonly client: RpcClient) {}

    @MessagePattern('planner.health')
    async health() {
      log.info('front handling');
      const head = await this.client.request('ledger.head', {}, { timeoutMs: 5_000 });
      log.info({ entryIndex: head.entryIndex }, 'front answered');
      return { service: 'planner', status: 'ok', replica: 'front' };
    }
  }
  @Module({})
  class FrontModule {}
  return {
    module: FrontModule,
    controllers: [FrontController],
    providers: [{ provide: RPC, useValue: rpc }],
  };
}

/** A "ledger" replica: answers ledger.head, and holds ledger.log.entry until the test opens its gate. */
function backModule(replica: string): DynamicModule {
  const log = serviceLogger('back');
  @Controller()
  class BackController {
    @MessagePattern('ledger.head')
    head() {
      served.push(replica);
      log.info({ replica }, 'back handling');
      return { worldRef: null, world: null, entryIndex: 3 };
    }

    @MessagePattern('ledger.log.entry')
    async held() {
      served.push(replica);
      gate!.entered = true;
      await gate!.opened;
      return { entryIndex: 1, entryHash: 'held' };
    }
  }
  @Module({})
  class BackModule {}
  return { module: BackModule, controllers: [BackController] };
}

const modes: Array<[string, () => TransportConfig]> = [
  ['nats', () => ({ kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('callctx') })],
  ['in-process', () => ({ kind: 'inproc', bus: new InProcessBus() })],
];

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

describe.each(modes)('call context over %s', (_mode, makeTransport) => {
  let transport: TransportConfig;
  const apps: INestMicroservice[] = [];
  const clients: RpcClient[] = [];
  let client: RpcClient;
  let logs: LogCapture;

  beforeAll(async () => {
    transport = makeTransport();
    const frontRpc = await connectRpc(transport, 'front');
    clients.push(frontRpc);
    apps.push(
      await startMicroservice('planner', frontModule(frontRpc), transport, { replica: 'front-1' }),
    );
    apps.push(
      await startMicroservice('ledger', backModule('back-1'), transport, { replica: 'back-1' }),
    );
    client = await connectRpc(transport, 'test-client');
    clients.push(client);
  });

  afterAll(async () => {
    gate?.release();
    for (const app of apps) await app.close();
    for (const c of clients) await c.close();
  });

  beforeEach(() => {
    exporter.reset();
    served.length = 0;
    logs = captureLogs('info');
  });

  afterEach(() => logs.stop());

  it('makes one trace of a call: each served hop is a server span named after its subject, child of its caller', async () => {
    const root = trace.getTracer('test').startSpan('client call', { kind: SpanKind.CLIENT });
    await withCallContext(
      { otel: trace.setSpan(ROOT_CONTEXT, root), invocationId: INVOCATION },
      () => client.request('planner.health', {}, { timeoutMs: 5_000 }),
    );
    root.end();
    const spans = await eventually(
      () => {
        const done = exporter.getFinishedSpans();
        return done.length === 3 ? done : undefined;
      },
      5_000,
      'three finished spans',
    );
    const byName = new Map(spans.map((s) => [s.name, s]));
    const front = byName.get('planner.health')!;
    const back = byName.get('ledger.head')!;
    expect([...byName.keys()].sort()).toEqual(['client call', 'ledger.head', 'planner.health']);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(
      new Set([root.spanContext().traceId]),
    );
    expect(front.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(back.parentSpanContext?.spanId).toBe(front.spanContext().spanId);
    expect(front.kind).toBe(SpanKind.SERVER);
    expect(back.kind).toBe(SpanKind.SERVER);
    expect(front.attributes).toEqual({
      'world.service': 'planner',
      'world.replica': 'front-1',
      'messaging.destination.name': 'planner.health',
      'world.invocation_id': INVOCATION,
    });
    expect(back.attributes).toEqual({
      'world.service': 'ledger',
      'world.replica': 'back-1',
      'messaging.destination.name': 'ledger.head',
      'world.invocation_id': INVOCATION,
    });
  });

  it('writes every line of a call, on each side of each hop, with its invocation id and trace id', async () => {
    const root = trace.getTracer('test').startSpan('client call');
    await withCallContext(
      { otel: trace.setSpan(ROOT_CONTEXT, root), invocationId: INVOCATION },
      () => client.request('planner.health', {}, { timeoutMs: 5_000 }),
    );
    root.end();
    const lines = logs.records
      .filter((r) => ['front', 'back'].includes(r.service as string))
      .map((r) => ({
        service: r.service,
        msg: r.msg,
        invocationId: r.invocationId,
        traceId: r.traceId,
      }));
    const traceId = root.spanContext().traceId;
    expect(lines).toEqual([
      { service: 'front', msg: 'front handling', invocationId: INVOCATION, traceId },
      { service: 'back', msg: 'back handling', invocationId: INVOCATION, traceId },
      { service: 'front', msg: 'front answered', invocationId: INVOCATION, traceId },
    ]);
  });

  it('writes lines outside any call without an invocation id', async () => {
    await client.request('ledger.head', {}, { timeoutMs: 5_000 });
    const back = logs.records.filter((r) => r.service === 'back');
    expect(back).toHaveLength(1);
    expect(Object.keys(back[0]!)).not.toContain('invocationId');
  });

  it('starts a new trace for a call that arrives without a trace context', async () => {
    await client.request('ledger.head', {}, { timeoutMs: 5_000 });
    const spans = await eventually(
      () => {
        const done = exporter.getFinishedSpans();
        return done.length === 1 ? done : undefined;
      },
      5_000,
      'one finished span',
    );
    expect(spans[0]!.name).toBe('ledger.head');
    expect(spans[0]!.parentSpanContext).toBeUndefined();
    expect(trace.isSpanContextValid(spans[0]!.spanContext())).toBe(true);
  });

  it('on close stops taking work, answers the request it holds, and leaves new work to the other replica', async () => {
    const held = openGate();
    const first = apps.find((a) => a !== apps[0])!; // back-1
    const answer = client.request('ledger.log.entry', { index: 1 }, { timeoutMs: 10_000 });
    await eventually(() => (held.entered ? true : undefined), 5_000, 'the held request to arrive');
    const second = await startMicroservice('ledger', backModule('back-2'), transport, {
      replica: 'back-2',
    });
    apps.push(second);
    let closed = false;
    const closing = first.close().then(() => {
      closed = true;
    });
    // Once its subscriptions are drained the closing replica takes no request: new ones go to back-2.
    await eventually(
      async () => {
        served.length = 0;
        for (let i = 0; i < 5; i++) await client.request('ledger.head', {}, { timeoutMs: 5_000 });
        return served.every((r) => r === 'back-2') ? true : undefined;
      },
      10_000,
      'five requests in a row served by back-2',
    );
    expect(served).toEqual(['back-2', 'back-2', 'back-2', 'back-2', 'back-2']);
    expect(closed).toBe(false);
    held.release();
    await expect(answer).resolves.toEqual({ entryIndex: 1, entryHash: 'held' });
    await closing;
    expect(closed).toBe(true);
    apps.splice(apps.indexOf(first), 1);
  });
});
