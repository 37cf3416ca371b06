import { CALL_DEADLINE_MS, deadlineTable } from './limits.js';

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
