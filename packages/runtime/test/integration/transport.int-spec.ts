import 'reflect-metadata';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  TransportTimeoutError,
  HeadConflictError,
  InternalError,
  NotFoundError,
  ServiceUnavailableError,
} from '@world/contracts';
import { connect } from '@nats-io/transport-node';
import { testNatsUrl, uniquePrefix, eventually } from '@world/testing';
import {
  InProcessBus,
  coalesceWrites,
  connectRpc,
  startMicroservice,
  type RpcClient,
  type TransportConfig,
} from '../../src/index.js';

const served: string[] = [];
const events: string[] = [];

function makeModule(replica: string) {
  @Controller()
  class FakeLedgerController {
    @MessagePattern('ledger.head')
    head() {
      served.push(replica);
      return { worldRef: null, world: null, entryIndex: 7 };
    }

    @MessagePattern('ledger.log.entry')
    entry(@Payload() data: { index: number }) {
      if (data.index === 1) throw new NotFoundError('log entry not found');
      if (data.index === 2) throw new HeadConflictError('', 'sha256:' + 'a'.repeat(64));
      if (data.index === 3) return new Promise((r) => setTimeout(r, 2_000));
      throw new Error('a raw failure with /internal/path');
    }

    @EventPattern('ledger.committed')
    committed(@Payload() data: { entryIndex: number }) {
      events.push(`${replica}:${data.entryIndex}`);
    }
  }
  @Module({ controllers: [FakeLedgerController] })
  class FakeLedgerModule {}
  return { module: FakeLedgerModule };
}

const modes: Array<[string, () => TransportConfig]> = [
  ['nats', () => ({ kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('transport') })],
  ['in-process', () => ({ kind: 'inproc', bus: new InProcessBus() })],
];

describe.each(modes)('service transport over %s', (_mode, makeTransport) => {
  let apps: INestMicroservice[] = [];
  let client: RpcClient;

  beforeAll(async () => {
    const transport = makeTransport();
    apps = [
      await startMicroservice('ledger', makeModule('r1'), transport),
      await startMicroservice('ledger', makeModule('r2'), transport),
    ];
    client = await connectRpc(transport, 'test-client');
  });

  afterAll(async () => {
    await client.close();
    for (const app of apps) await app.close();
  });

  beforeEach(() => {
    served.length = 0;
    events.length = 0;
  });

  it('answers a request with the handler reply', async () => {
    await expect(client.request('ledger.head', {}, { timeoutMs: 2_000 })).resolves.toEqual({
      worldRef: null,
      world: null,
      entryIndex: 7,
    });
  });

  it('shares requests between the replicas of a queue group', async () => {
    for (let i = 0; i < 40; i++) await client.request('ledger.head', {}, { timeoutMs: 2_000 });
    expect(served.length).toBe(40);
    expect(new Set(served)).toEqual(new Set(['r1', 'r2']));
  });

  it('restores typed errors with their details', async () => {
    await expect(
      client.request('ledger.log.entry', { index: 1 }, { timeoutMs: 2_000 }),
    ).rejects.toEqual(new NotFoundError('log entry not found'));
    const conflict = await client
      .request('ledger.log.entry', { index: 2 }, { timeoutMs: 2_000 })
      .catch((e) => e);
    expect(conflict).toBeInstanceOf(HeadConflictError);
    expect(conflict.details()).toEqual({
      observedHead: '',
      selectedHead: 'sha256:' + 'a'.repeat(64),
    });
  });

  it('answers an untyped failure as Internal without its message', async () => {
    const err = await client
      .request('ledger.log.entry', { index: 9 }, { timeoutMs: 2_000 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect(err.message).toBe('internal store failure');
  });

  it('ends a slow request at its timeout', async () => {
    const err = await client
      .request('ledger.log.entry', { index: 3 }, { timeoutMs: 200 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransportTimeoutError);
    expect(err.message).toBe('ledger.log.entry did not answer within 200 ms');
  });

  it('reports a subject nobody serves as unavailable', async () => {
    const err = await client.request('planner.health', {}, { timeoutMs: 500 }).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.message).toBe('no service answers planner.health');
  });

  it('delivers a broadcast event to every replica', async () => {
    client.emit('ledger.committed', {
      entryIndex: 5,
      entryHash: 'sha256:' + 'b'.repeat(64),
      worldRef: 'sha256:' + 'c'.repeat(64),
      writtenBy: 'coordinator:mcp',
      invocationId: null,
    });
    await eventually(() => (events.length === 2 ? true : undefined), 2_000, 'two deliveries');
    expect(events.sort()).toEqual(['r1:5', 'r2:5']);
  });
});

describe('a service serving on its client’s NATS connection', () => {
  it('answers concurrent requests over the shared connection; its close leaves the client connected', async () => {
    const transport: TransportConfig = {
      kind: 'nats',
      url: testNatsUrl(),
      prefix: uniquePrefix('shared'),
    };
    const rpc = await connectRpc(transport, 'shared-client');
    const app = await startMicroservice('ledger', makeModule('s1'), transport, { rpc });
    try {
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => rpc.request('ledger.head', {}, { timeoutMs: 2_000 })),
      );
      expect(replies).toEqual(
        Array.from({ length: 20 }, () => ({ worldRef: null, world: null, entryIndex: 7 })),
      );
      await app.close();
      const err = await rpc.request('ledger.head', {}, { timeoutMs: 500 }).catch((e) => e);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect(err.message).toBe('no service answers ledger.head');
      await expect(rpc.ping()).resolves.toBeUndefined();
    } finally {
      await rpc.close();
    }
  });
});

describe('coalesceWrites on a connection of the installed nats.js', () => {
  it('finds the protocol writer it relies on, and what one turn publishes still arrives in order', async () => {
    const nc = await connect({ servers: [testNatsUrl()] });
    try {
      expect(() => coalesceWrites(nc)).not.toThrow();
      const subject = `${uniquePrefix('coalesce')}.order`;
      const got: string[] = [];
      nc.subscribe(subject, { callback: (_err, msg) => void got.push(msg.string()) });
      for (const n of ['1', '2', '3']) nc.publish(subject, n);
      await nc.flush();
      await eventually(() => (got.length === 3 ? got : undefined), 2_000, 'three messages');
      expect(got).toEqual(['1', '2', '3']);
    } finally {
      await nc.close();
    }
  });
});
