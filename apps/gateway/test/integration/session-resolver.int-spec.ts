import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import {
  SESSION_CACHE_MAX_MS,
  SessionExpiredError,
  SessionUnknownError,
  credentialIdOf,
} from '@world/contracts';
import {
  InProcessBus,
  connectRpc,
  startMicroservice,
  type RpcClient,
  type TransportConfig,
} from '@world/runtime';
import { eventually, testNatsUrl, uniquePrefix } from '@world/testing';
import { SessionResolver } from '../../src/auth/session-resolver.js';
import { FakeWorld, hex } from './fake-world.js';

const TOKEN = hex('a');
const HOUR_MS = 3_600_000;

const modes: Array<[string, () => TransportConfig]> = [
  ['NATS', () => ({ kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('gateway-sessions') })],
  ['the in-process bus', () => ({ kind: 'inproc', bus: new InProcessBus() })],
];

describe.each(modes)('the session cache over %s (DESIGN.md §2)', (_mode, makeTransport) => {
  let world: FakeWorld;
  let broker: INestMicroservice;
  let gatewayRpc: RpcClient;
  let emitter: RpcClient;
  let now: number;
  let resolver: SessionResolver;

  beforeAll(async () => {
    const transport = makeTransport();
    world = new FakeWorld();
    broker = await startMicroservice('broker', world.modules().broker, transport);
    gatewayRpc = await connectRpc(transport, 'gateway-test');
    emitter = await connectRpc(transport, 'broker-events');
  });

  afterAll(async () => {
    await gatewayRpc.close();
    await emitter.close();
    await broker.close();
  });

  beforeEach(() => {
    now = 1_000_000;
    world.sessions.clear();
    world.calls.length = 0;
    world.addSession(TOKEN, [['Workspace.Read', 5]], { expiresAt: now + HOUR_MS });
    resolver = new SessionResolver(gatewayRpc, () => now);
  });

  afterEach(() => resolver.close());

  const lookups = () => world.callsOf('broker.session.resolve').length;

  it('answers a second resolution within SESSION_CACHE_MAX_MS from the cache', async () => {
    const first = await resolver.resolve(TOKEN);
    now += SESSION_CACHE_MAX_MS - 1;
    expect(await resolver.resolve(TOKEN)).toEqual(first);
    expect(lookups()).toBe(1);
  });

  it('asks the broker again once SESSION_CACHE_MAX_MS has passed', async () => {
    await resolver.resolve(TOKEN);
    now += SESSION_CACHE_MAX_MS;
    await resolver.resolve(TOKEN);
    expect(lookups()).toBe(2);
  });

  it('drops a cached session on broker.session.revoked', async () => {
    await resolver.resolve(TOKEN);
    world.sessions.get(credentialIdOf(TOKEN))!.state = 'revoked';
    emitter.emit('broker.session.revoked', { credentialId: credentialIdOf(TOKEN) });
    const refused = await eventually(
      () =>
        resolver.resolve(TOKEN).then(
          () => undefined,
          (err: unknown) => err,
        ),
      5_000,
      'the revocation to reach the cache',
    );
    expect(refused).toEqual(new SessionUnknownError());
  });

  it('refuses a cached session past its expiresAt without asking the broker', async () => {
    world.sessions.clear();
    world.addSession(TOKEN, [['Workspace.Read', 5]], { expiresAt: now + 10 });
    await resolver.resolve(TOKEN);
    now += 10;
    await expect(resolver.resolve(TOKEN)).rejects.toEqual(new SessionExpiredError());
    expect(lookups()).toBe(1);
  });

  it.each([
    ['revoked', new SessionUnknownError()],
    ['expired', new SessionExpiredError()],
  ] as const)(
    'answers a %s credential with its typed error and caches nothing',
    async (state, error) => {
      world.sessions.get(credentialIdOf(TOKEN))!.state = state;
      await expect(resolver.resolve(TOKEN)).rejects.toEqual(error);
      await expect(resolver.resolve(TOKEN)).rejects.toEqual(error);
      expect(lookups()).toBe(2);
    },
  );

  it('answers a credential the broker never minted as unknown', async () => {
    await expect(resolver.resolve(hex('7'))).rejects.toEqual(new SessionUnknownError());
  });
});
