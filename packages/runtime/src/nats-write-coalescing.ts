/**
 * The one place World reaches into nats.js's internals: the protocol writer of a connection
 * (`@nats-io/nats-core` ProtocolHandler, lib/protocol.js), patched so that a connection writes
 * once per event-loop turn. nats.js has no public option for when it flushes; the bench measured
 * why this is worth it (bench/README.md "What changed since the first profile", item 3: socket
 * writes were most of a service's transport CPU — nats.js `_send` 43 % of the planner's profile —
 * and the transport changes together took the planner from 4.4 to 1.9 ms of CPU per call).
 * Every connection is checked for the shape this relies on before it is patched, so an upgrade
 * that changes it stops the process at start-up with a LibraryShapeError.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { LibraryShapeError, installedVersion, resolvedEntry } from './library-shape.js';

/**
 * The parts of nats.js's ProtocolHandler (@nats-io/nats-core 3.4.0 lib/protocol.js) that
 * coalesceWrites replaces or uses: the outbound DataBuffer, its inline-flush threshold, the flush.
 */
interface ProtocolInternals {
  outbound: {
    length(): number;
    size(): number;
    fill(data: Uint8Array, ...more: Uint8Array[]): unknown;
  };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

/** The library, and the version of it this adapter was written against. */
const LIBRARY = '@nats-io/nats-core';
const ADAPTER = {
  name: "World's write coalescing (coalesceWrites)",
  file: 'packages/runtime/src/nats-write-coalescing.ts',
  writtenAgainst: '3.4.0',
};

type Check = [member: string, expected: string, holds: (p: Record<string, unknown>) => boolean];

const isFunction = (v: unknown) => typeof v === 'function';
const outboundOf = (p: Record<string, unknown>) =>
  (typeof p.outbound === 'object' && p.outbound !== null ? p.outbound : {}) as Record<
    string,
    unknown
  >;

/** What coalesceWrites needs of a connection's `protocol`, in the order it is checked. */
const PROTOCOL_SHAPE: readonly Check[] = [
  ['sendCommand', 'a function', (p) => isFunction(p.sendCommand)],
  ['flushPending', 'a function', (p) => isFunction(p.flushPending)],
  ['pendingLimit', 'a number', (p) => typeof p.pendingLimit === 'number'],
  ['outbound', 'an object', (p) => typeof p.outbound === 'object' && p.outbound !== null],
  ['outbound.fill', 'a function', (p) => isFunction(outboundOf(p).fill)],
  ['outbound.length', 'a function', (p) => isFunction(outboundOf(p).length)],
  ['outbound.size', 'a function', (p) => isFunction(outboundOf(p).size)],
];

/** How a value looks in a problem line: its type, or null. */
function kindOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/**
 * What a connection lacks of the shape coalesceWrites relies on, as one phrase; null when it has
 * all of it.
 * @param nc a connection from connect()
 */
function writeCoalescingProblem(nc: unknown): string | null {
  const protocol = (nc as { protocol?: unknown } | null)?.protocol;
  if (typeof protocol !== 'object' || protocol === null)
    return `a connection's \`protocol\` (its ProtocolHandler) is ${kindOf(protocol)}, not an object`;
  const p = protocol as Record<string, unknown>;
  for (const [member, expected, holds] of PROTOCOL_SHAPE) {
    if (holds(p)) continue;
    const value = member.startsWith('outbound.')
      ? outboundOf(p)[member.slice('outbound.'.length)]
      : p[member];
    return `ProtocolHandler.${member} is ${kindOf(value)}, not ${expected}`;
  }
  return null;
}

const encoder = new TextEncoder();

/**
 * Makes a connection write once per event-loop turn instead of once per microtask checkpoint.
 * nats.js buffers every protocol command and flushes the buffer on a microtask queued by the
 * first command; each flush is one socket write, and socket writes are most of a service's
 * transport CPU. Here the flush waits for setImmediate (the end of the current poll phase), so
 * the commands of one turn — a reply and the request or event its handler sent in the same turn,
 * replies to messages that arrived in one read — go out in one write. Order on the wire is
 * unchanged; a buffer past the connection's pending limit still flushes at once, and flush()
 * (PING) and drain still flush immediately.
 * @param nc a connection from @nats-io/transport-node 3.4.0's connect()
 * @throws LibraryShapeError when the connection's protocol handler lacks what this replaces or
 *   uses (writeCoalescingProblem): nothing is patched
 */
export function coalesceWrites(nc: NatsConnection): void {
  const problem = writeCoalescingProblem(nc);
  if (problem !== null) {
    const from = resolvedEntry('@nats-io/transport-node', import.meta.url) ?? import.meta.url;
    throw new LibraryShapeError(LIBRARY, installedVersion(LIBRARY, from), problem, ADAPTER);
  }
  const p = (nc as unknown as { protocol: ProtocolInternals }).protocol;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    p.flushPending();
  };
  p.sendCommand = (cmd, ...payloads) => {
    const wasEmpty = p.outbound.length() === 0;
    p.outbound.fill(typeof cmd === 'string' ? encoder.encode(cmd) : cmd, ...payloads);
    if (wasEmpty) {
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    } else if (p.outbound.size() >= p.pendingLimit) {
      p.flushPending();
    }
  };
}
