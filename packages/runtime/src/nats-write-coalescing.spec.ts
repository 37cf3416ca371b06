import type { NatsConnection } from '@nats-io/transport-node';
import { LibraryShapeError } from './library-shape.js';
import { coalesceWrites } from './nats-write-coalescing.js';

/** A protocol handler of nats.js 3.4.0's shape that records what it is asked to do. */
function fakeProtocol(pendingLimit = 1024) {
  const chunks: Uint8Array[] = [];
  const flushes: string[] = [];
  const original = () => {
    throw new Error('the original sendCommand must not run once patched');
  };
  const protocol = {
    pendingLimit,
    outbound: {
      length: (): number => chunks.length,
      size: (): number => chunks.reduce((n, c) => n + c.length, 0),
      fill: (data: Uint8Array, ...more: Uint8Array[]): void => void chunks.push(data, ...more),
    },
    flushPending: () => {
      flushes.push(chunks.map((c) => Buffer.from(c).toString()).join(''));
      chunks.length = 0;
    },
    sendCommand: original as (cmd: string | Uint8Array, ...payloads: Uint8Array[]) => void,
  };
  return { nc: { protocol } as unknown as NatsConnection, protocol, flushes, original };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

const shapeError = (problem: string) =>
  new LibraryShapeError('@nats-io/nats-core', '3.4.0', problem, {
    name: "World's write coalescing (coalesceWrites)",
    file: 'packages/runtime/src/nats-write-coalescing.ts',
    writtenAgainst: '3.4.0',
  });

describe('coalesceWrites: one socket write per event-loop turn (bench/README.md item 3)', () => {
  it('flushes the commands of one turn together, in order, once the turn ends', async () => {
    const { nc, protocol, flushes } = fakeProtocol();
    coalesceWrites(nc);
    protocol.sendCommand('PUB a 1\r\n', Buffer.from('x'), Buffer.from('\r\n'));
    protocol.sendCommand('PUB b 1\r\n', Buffer.from('y'), Buffer.from('\r\n'));
    await Promise.resolve();
    expect(flushes).toEqual([]);
    await turn();
    expect(flushes).toEqual(['PUB a 1\r\nx\r\nPUB b 1\r\ny\r\n']);
  });

  it('still flushes at once when the buffer reaches the pending limit', () => {
    const { nc, protocol, flushes } = fakeProtocol(8);
    coalesceWrites(nc);
    protocol.sendCommand('SUB a 1\r\n');
    expect(flushes).toEqual([]);
    protocol.sendCommand('SUB b 2\r\n');
    expect(flushes).toEqual(['SUB a 1\r\nSUB b 2\r\n']);
  });
});

describe('coalesceWrites: the start-up shape check of nats.js internals', () => {
  it.each([
    [
      'a connection without a protocol handler',
      {},
      "a connection's `protocol` (its ProtocolHandler) is undefined, not an object",
    ],
    [
      'a protocol handler whose sendCommand was renamed',
      { protocol: { ...fakeProtocol().protocol, sendCommand: undefined } },
      'ProtocolHandler.sendCommand is undefined, not a function',
    ],
    [
      'a pending limit that became a getter function',
      { protocol: { ...fakeProtocol().protocol, pendingLimit: () => 1024 } },
      'ProtocolHandler.pendingLimit is function, not a number',
    ],
    [
      'an outbound buffer without size()',
      {
        protocol: {
          ...fakeProtocol().protocol,
          outbound: { length: (): number => 0, fill: (): void => undefined },
        },
      },
      'ProtocolHandler.outbound.size is undefined, not a function',
    ],
    [
      'no outbound buffer',
      { protocol: { ...fakeProtocol().protocol, outbound: null } },
      'ProtocolHandler.outbound is null, not an object',
    ],
  ])('refuses %s with the exact LibraryShapeError', (_case, nc, problem) => {
    expect(() => coalesceWrites(nc as unknown as NatsConnection)).toThrow(shapeError(problem));
    let thrown: unknown;
    try {
      coalesceWrites(nc as unknown as NatsConnection);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(LibraryShapeError);
    expect((thrown as Error).message).toBe(
      `@nats-io/nats-core 3.4.0: ${problem}; World's write coalescing (coalesceWrites) relies on it ` +
        '(written against 3.4.0): check packages/runtime/src/nats-write-coalescing.ts before upgrading',
    );
  });

  it('patches nothing when the shape check fails', () => {
    const { protocol, original } = fakeProtocol();
    const broken = { protocol: { ...protocol, flushPending: 'gone' } };
    expect(() => coalesceWrites(broken as unknown as NatsConnection)).toThrow(LibraryShapeError);
    expect(broken.protocol.sendCommand).toBe(original);
  });
});
