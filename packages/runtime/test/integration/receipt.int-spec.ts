/**
 * Receipts on both transports (receipt.ts): the replica that takes a request acknowledges it on
 * the request's own reply path and goes on only while its caller waits and accepts the receipt
 * (DESIGN.md §2; world-spec §4.5, §6.5; world-internals §5.5).
 */
import 'reflect-metadata';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { TransportTimeoutError, type RequestOf } from '@world/contracts';
import { eventually, testNatsUrl, uniquePrefix } from '@world/testing';
import {
  InProcessBus,
  confirmReceipt,
  connectRpc,
  startMicroservice,
  type RpcClient,
  type TransportConfig,
} from '../../src/index.js';

/** What the fake planner decided, per request tag: went on, or not. */
const decided: Array<[string, boolean]> = [];

@Controller()
class FakePlannerController {
  /** Acknowledges with the caller id the request names, after `waitMs`, and says what it decided. */
  @MessagePattern('planner.invoke')
  async invoke(@Payload() data: { toolId: string; caller: string; waitMs: number }) {
    if (data.waitMs > 0) await new Promise((r) => setTimeout(r, data.waitMs));
    const goOn = await confirmReceipt('planner.invoke', { caller: data.caller });
    decided.push([data.toolId, goOn]);
    return { goOn };
  }
}
@Module({ controllers: [FakePlannerController] })
class FakePlannerModule {}

const modes: Array<[string, () => TransportConfig]> = [
  ['nats', () => ({ kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('receipt') })],
  ['in-process', () => ({ kind: 'inproc', bus: new InProcessBus() })],
];

describe.each(modes)('request receipts over %s', (_mode, makeTransport) => {
  let app: INestMicroservice;
  let client: RpcClient;
  const request = (toolId: string, caller: string, waitMs = 0) =>
    ({ toolId, caller, waitMs }) as unknown as RequestOf<'planner.invoke'>;

  beforeAll(async () => {
    const transport = makeTransport();
    app = await startMicroservice('planner', { module: FakePlannerModule }, transport);
    client = await connectRpc(transport, 'receipt-client');
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  beforeEach(() => {
    decided.length = 0;
  });

  it('hands the receipt to the waiting caller, whose yes lets the taker go on', async () => {
    const receipts: unknown[] = [];
    const reply = await client.request('planner.invoke', request('yes', 'c0ffee'), {
      timeoutMs: 5_000,
      onReceipt: (r) => receipts.push(r) > 0,
    });
    expect([reply, receipts, decided]).toEqual([
      { goOn: true },
      [{ caller: 'c0ffee' }],
      [['yes', true]],
    ]);
  });

  it("stops the taker on the caller's no", async () => {
    const reply = await client.request('planner.invoke', request('no', 'c0ffee'), {
      timeoutMs: 5_000,
      onReceipt: () => false,
    });
    expect([reply, decided]).toEqual([{ goOn: false }, [['no', false]]]);
  });

  it('lets the taker of a request that asked for no receipt go on at once', async () => {
    const reply = await client.request('planner.invoke', request('none', 'c0ffee'), {
      timeoutMs: 5_000,
    });
    expect([reply, decided]).toEqual([{ goOn: true }, [['none', true]]]);
  });

  it('refuses a receipt off the contract schema without asking the caller', async () => {
    const receipts: unknown[] = [];
    const reply = await client.request('planner.invoke', request('bad', 'NOT-HEX'), {
      timeoutMs: 5_000,
      onReceipt: (r) => receipts.push(r) > 0,
    });
    expect([reply, receipts, decided]).toEqual([{ goOn: false }, [], [['bad', false]]]);
  });

  it('refuses a receipt that comes after the request settled', async () => {
    const receipts: unknown[] = [];
    await expect(
      client.request('planner.invoke', request('late', 'c0ffee', 300), {
        timeoutMs: 100,
        onReceipt: (r) => receipts.push(r) > 0,
      }),
    ).rejects.toBeInstanceOf(TransportTimeoutError);
    await eventually(() => (decided.length > 0 ? true : undefined), 5_000, 'the late receipt');
    expect([receipts, decided]).toEqual([[], [['late', false]]]);
  });
});
