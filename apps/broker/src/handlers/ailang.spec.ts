import { canonicalBytes } from '@world/canonical';
import {
  fitRunOutput,
  RUN_OUTPUT_BUDGET_BYTES,
  TOOLCHAIN_DEADLINE_MARGIN_MS,
  toolchainDeadlineMs,
} from './ailang.js';

const base = {
  admitted: true,
  exit_code: 0,
  decision: { ok: true },
  limit: null,
  policy: { digest: 'd'.repeat(64) },
};

describe('fitRunOutput (a run output under the invocation output cap, world-spec §3.5, §4.2)', () => {
  it('returns an output that fits as it is, with no truncation marks', () => {
    const out = { ...base, stdout: 'hi\n', stderr: 'policy: {}\n' };
    expect(fitRunOutput(out, RUN_OUTPUT_BUDGET_BYTES)).toBe(out);
  });

  it('keeps the head of a stdout too large, marks it, and leaves stderr whole', () => {
    const stdout = 'x'.repeat(2_000_000);
    const out = { ...base, stdout, stderr: 'policy: {}\n' };
    const fitted = fitRunOutput(out, RUN_OUTPUT_BUDGET_BYTES);
    const size = canonicalBytes(fitted).length;
    expect([
      size <= RUN_OUTPUT_BUDGET_BYTES,
      size > RUN_OUTPUT_BUDGET_BYTES - 64 * 1024,
      stdout.startsWith(fitted.stdout as string),
      fitted.stdout_truncated,
      fitted.stderr,
      fitted.stderr_truncated,
      fitted.exit_code,
      fitted.limit,
    ]).toEqual([true, true, true, true, 'policy: {}\n', false, 0, null]);
  });

  it('fits output whose JSON escapes are six bytes a character', () => {
    const stdout = '\u0001'.repeat(400_000);
    const fitted = fitRunOutput({ ...base, stdout, stderr: '' }, RUN_OUTPUT_BUDGET_BYTES);
    expect([
      canonicalBytes(fitted).length <= RUN_OUTPUT_BUDGET_BYTES,
      (fitted.stdout as string).length > 100_000,
      fitted.stdout_truncated,
    ]).toEqual([true, true, true]);
  });

  it('never splits a surrogate pair at the cut', () => {
    const stdout = '😀'.repeat(600_000);
    const fitted = fitRunOutput({ ...base, stdout, stderr: '' }, RUN_OUTPUT_BUDGET_BYTES);
    const kept = fitted.stdout as string;
    expect([kept.length % 2, kept.endsWith('😀'), fitted.stdout_truncated]).toEqual([
      0,
      true,
      true,
    ]);
  });
});

describe('toolchainDeadlineMs (the toolchain answers before the handler deadline)', () => {
  it('ends the toolchain 500 ms before the handler deadline', () => {
    expect([TOOLCHAIN_DEADLINE_MARGIN_MS, toolchainDeadlineMs(20_000, 10_000)]).toEqual([
      500, 9_500,
    ]);
  });

  it('leaves at least 1 ms when the handler deadline is close or gone', () => {
    expect([toolchainDeadlineMs(10_300, 10_000), toolchainDeadlineMs(9_000, 10_000)]).toEqual([
      1, 1,
    ]);
  });
});
