import { COMMIT_MESSAGE_MAX_BYTES, ServiceUnavailableError } from '@world/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import { maxPayloadProblem, maxPayloadShortfall, refuseUnfitBus } from './bus-fit.js';
import type { RpcClient } from './rpc.js';

const on = (maxPayload: number | undefined) =>
  ({
    info: maxPayload === undefined ? undefined : { max_payload: maxPayload },
  }) as unknown as NatsConnection;
const describeAt = (n: number) => maxPayloadProblem(n, 'nats://127.0.0.1:4222');

describe('maxPayloadShortfall (DESIGN.md §1: a commit that cannot fit never follows an effect)', () => {
  it.each([
    [1_048_576, describeAt(1_048_576)],
    [COMMIT_MESSAGE_MAX_BYTES - 1, describeAt(COMMIT_MESSAGE_MAX_BYTES - 1)],
    [COMMIT_MESSAGE_MAX_BYTES, null],
    [8_388_608, null],
    [undefined, null],
  ])('a server with max_payload %p: %p', (maxPayload, expected) => {
    expect(maxPayloadShortfall(on(maxPayload), describeAt)).toBe(expected);
  });

  it('refuses work with ServiceUnavailableError naming the setting, and lets it through otherwise', () => {
    const rpc = (problem: string | null) =>
      ({ commitFitProblem: () => problem }) as unknown as RpcClient;
    expect(() => refuseUnfitBus(rpc(describeAt(1_048_576)))).toThrow(
      new ServiceUnavailableError(describeAt(1_048_576)),
    );
    expect(() => refuseUnfitBus(rpc(null))).not.toThrow();
    expect(() => refuseUnfitBus({} as RpcClient)).not.toThrow();
  });
});
