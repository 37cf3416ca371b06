import {
  A2A_BODY_MAX_BYTES,
  COMMIT_BODY_MAX_BYTES,
  HANDLER_OUTPUT_MAX_BYTES,
  READ_CONTENT_MAX_BYTES,
  WORLD_BLOCK_MAX_BYTES,
  CALL_DEADLINE_MS,
  COMMIT_MESSAGE_MAX_BYTES,
  EPISODE_LEASE_RENEW_MS,
  EPISODE_LEASE_TTL_MS,
  COMMIT_MESSAGE_OVERHEAD_MAX_BYTES,
  INVOCATION_INPUT_MAX_BYTES,
  INVOCATION_OUTPUT_MAX_BYTES,
  MCP_BODY_MAX_BYTES,
  MiB,
  NATS_MAX_PAYLOAD_BYTES,
  PLAN_PAYLOAD_MAX_BYTES,
  base64Length,
  deadlineTable,
} from './limits.js';

describe('deadlineTable (world-internals §9, §13: every phase budget derives from one total)', () => {
  it('derives the reference table from 20 s', () => {
    expect(deadlineTable()).toEqual({
      totalMs: 20_000,
      handlerMs: 10_000,
      finishMs: 2_000,
      postEffectMs: 4_000,
      planMs: 4_000,
      policyTimeoutMs: 8_000,
      leaseTtlMs: 22_000,
    });
    expect(deadlineTable(CALL_DEADLINE_MS)).toEqual(deadlineTable());
  });

  it.each([4_000, 10_000, 20_000, 60_000])(
    'keeps the derivation laws for a total of %i ms',
    (total) => {
      const d = deadlineTable(total);
      expect(d.planMs).toBe(d.totalMs - d.handlerMs - (d.finishMs + d.postEffectMs));
      expect(d.policyTimeoutMs).toBe(d.handlerMs - d.finishMs);
      expect(d.policyTimeoutMs).toBeLessThan(d.handlerMs);
      expect(d.planMs + d.handlerMs + d.finishMs + d.postEffectMs).toBe(d.totalMs);
      expect(d.leaseTtlMs).toBeGreaterThan(d.totalMs);
    },
  );

  it.each([0, -1, 1.5, Number.NaN])('refuses a total of %s', (total) => {
    expect(() => deadlineTable(total)).toThrow(
      new RangeError(`deadline total must be a positive integer, got ${total}`),
    );
  });
});

describe('COMMIT_MESSAGE_MAX_BYTES (DESIGN.md §1: an effect whose commit cannot fit never runs)', () => {
  it.each([
    [0, 0],
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 8],
    [MiB, 1_398_104],
  ])('base64 of %i bytes is %i characters (RFC 4648 §4)', (bytes, chars) => {
    expect(base64Length(bytes)).toBe(chars);
    expect(base64Length(bytes)).toBe(Buffer.alloc(bytes).toString('base64').length);
  });

  it.each([-1, 1.5, Number.NaN])('refuses a byte count of %s', (bytes) => {
    expect(() => base64Length(bytes)).toThrow(
      new RangeError(`byte count must be a non-negative integer, got ${bytes}`),
    );
  });

  it('is the base64 of input, plan payload ×2, result and output plus the overhead allowance', () => {
    expect(COMMIT_MESSAGE_MAX_BYTES).toBe(
      base64Length(INVOCATION_INPUT_MAX_BYTES) +
        2 * base64Length(PLAN_PAYLOAD_MAX_BYTES) +
        base64Length(INVOCATION_OUTPUT_MAX_BYTES) +
        base64Length(INVOCATION_OUTPUT_MAX_BYTES) +
        COMMIT_MESSAGE_OVERHEAD_MAX_BYTES,
    );
    expect(COMMIT_MESSAGE_MAX_BYTES).toBe(7_056_056);
  });

  it("fits the deployments' max_payload and exceeds NATS's 1 MiB default", () => {
    expect(COMMIT_MESSAGE_MAX_BYTES).toBeLessThanOrEqual(NATS_MAX_PAYLOAD_BYTES);
    expect(COMMIT_MESSAGE_MAX_BYTES).toBeGreaterThan(1 * MiB);
  });

  it('bounds every other tool-call message: an invocation request is at most an MCP body', () => {
    expect(MCP_BODY_MAX_BYTES + COMMIT_MESSAGE_OVERHEAD_MAX_BYTES).toBeLessThan(
      COMMIT_MESSAGE_MAX_BYTES,
    );
    expect(A2A_BODY_MAX_BYTES).toBeLessThan(MCP_BODY_MAX_BYTES);
  });
});

describe('the limits derived from the commit bound (DESIGN.md §1: an effect whose commit cannot fit never runs)', () => {
  it('leaves a handler the output cap less the world block, and ailang-read that less its fields', () => {
    expect([HANDLER_OUTPUT_MAX_BYTES, READ_CONTENT_MAX_BYTES]).toEqual([1_032_192, 1_031_168]);
    expect(HANDLER_OUTPUT_MAX_BYTES + WORLD_BLOCK_MAX_BYTES).toBe(INVOCATION_OUTPUT_MAX_BYTES);
  });

  it('bounds a REST commit body by the commit message less its packet overhead', () => {
    expect(COMMIT_BODY_MAX_BYTES).toBe(6_990_520);
    expect(COMMIT_BODY_MAX_BYTES + COMMIT_MESSAGE_OVERHEAD_MAX_BYTES).toBe(
      COMMIT_MESSAGE_MAX_BYTES,
    );
    expect(COMMIT_BODY_MAX_BYTES).toBeLessThan(NATS_MAX_PAYLOAD_BYTES);
  });
});

describe('EPISODE_LEASE_TTL_MS (DESIGN.md §2: a dead holder stalls its episode briefly)', () => {
  it('lasts 3 s and is renewed every third of it', () => {
    expect([EPISODE_LEASE_TTL_MS, EPISODE_LEASE_RENEW_MS]).toEqual([3_000, 1_000]);
    expect(EPISODE_LEASE_RENEW_MS * 3).toBe(EPISODE_LEASE_TTL_MS);
  });
});
