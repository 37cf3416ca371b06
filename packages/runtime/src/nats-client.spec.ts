import {
  COMMIT_MESSAGE_MAX_BYTES,
  COMMIT_MESSAGE_OVERHEAD_MAX_BYTES,
  LedgerCommitRequest,
  NATS_MAX_PAYLOAD_BYTES,
  base64Length,
} from '@world/contracts';
import { largestCommit } from '../test/support/largest-commit.js';
import { maxPayloadProblem } from './bus-fit.js';
import { requestPacket } from './nats-client.js';
import { serveMessage, withCallContext } from './trace.js';

const TRACEPARENT = `00-${'4'.repeat(32)}-${'0'.repeat(15)}1-01`;

describe('the largest commit on the wire (DESIGN.md §1: every commit fits the bus)', () => {
  const { request, large } = largestCommit();
  // The packet as NatsRpcClient sends it from inside a traced call of a keyed invocation.
  const packet = serveMessage('planner.invoke', { traceparent: TRACEPARENT }, {}).run(() =>
    withCallContext({ invocationId: request.invocationId }, () =>
      requestPacket('ledger.commit', request),
    ),
  );
  const bytes = Buffer.byteLength(packet);
  const overhead = bytes - large.reduce((sum, n) => sum + base64Length(n), 0);

  it('is a valid ledger.commit request carrying the trace context', () => {
    const sent = JSON.parse(packet) as { pattern: string; data: unknown; traceparent: string };
    expect(LedgerCommitRequest.safeParse(sent.data).success).toBe(true);
    expect([sent.pattern, sent.traceparent]).toEqual(['ledger.commit', TRACEPARENT]);
    expect(sent.data).toEqual(request);
  });

  it('fits COMMIT_MESSAGE_MAX_BYTES: its envelopes, small objects and fields stay within the overhead allowance', () => {
    // The measured figures, quoted in COMMIT_MESSAGE_OVERHEAD_MAX_BYTES's docstring.
    process.stdout.write(
      `largest ledger.commit: ${bytes} bytes on the wire, ${overhead} of them outside the five payloads' base64\n`,
    );
    expect([bytes, overhead]).toEqual([6_999_390, 8_870]);
    expect(overhead).toBeLessThanOrEqual(COMMIT_MESSAGE_OVERHEAD_MAX_BYTES);
    expect(bytes).toBeLessThanOrEqual(COMMIT_MESSAGE_MAX_BYTES);
    expect(COMMIT_MESSAGE_MAX_BYTES).toBeLessThanOrEqual(NATS_MAX_PAYLOAD_BYTES);
  });

  it('names the setting, the server, the need and the fix in one line', () => {
    expect(maxPayloadProblem(1_048_576, 'nats://127.0.0.1:4222')).toBe(
      "NATS max_payload is 1048576 bytes at nats://127.0.0.1:4222; World needs at least 7056056 (its largest commit message, COMMIT_MESSAGE_MAX_BYTES): set max_payload: 8388608 in the server's configuration (infra/nats/nats.conf)",
    );
  });
});
