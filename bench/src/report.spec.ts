import { attachBaselines, checkTargets } from './report.js';
import type { TargetCheck } from './report-floor.js';
import type { ScenarioResult } from './scenarios.js';
import { summarize } from './stats.js';

/** A scenario whose calls all took `ms` (p50 = p99 = ms) at `perSec` calls/s. */
function scenario(
  target: ScenarioResult['target'],
  driver: ScenarioResult['driver'],
  kind: ScenarioResult['scenario'],
  ms: number,
  extra: Partial<ScenarioResult> = {},
): ScenarioResult {
  const calls = 100;
  const perSec = extra.summary?.callsPerSec ?? 1000 / ms;
  return {
    id: `${target}/${driver}/${kind}`,
    target,
    driver,
    scenario: kind,
    clients: 1,
    episodes: 1,
    summary: { ...summarize(Array(calls).fill(ms), (calls * 1000) / perSec), ...extra.summary },
    rssPeakMb: {},
    ...extra,
  } as ScenarioResult;
}

function status(checks: TargetCheck[], prefix: string): string {
  const c = checks.find((x) => x.target.startsWith(prefix));
  return c === undefined ? 'absent' : `${c.status} ${c.measured}`;
}

describe('attachBaselines (issue 7: overhead at the same percentile, driver and concurrency)', () => {
  it('compares contention with baseline c8 and the episode windows with baseline c1 (http)', () => {
    const all = [
      scenario('baseline', 'http', 'c1', 1),
      scenario('baseline', 'http', 'c8', 2),
      scenario('baseline', 'mcp-client', 'c8', 4),
      scenario('distributed', 'mcp-client', 'contention', 10),
      scenario('distributed', 'http', 'episode-late', 3),
      scenario('distributed', 'http', 'log-read', 3),
    ];
    attachBaselines(all);
    expect(
      all.map((s) => [s.id, s.baselineId ?? null, s.overhead?.latency.p50.diffMs ?? null]),
    ).toEqual([
      ['baseline/http/c1', null, null],
      ['baseline/http/c8', null, null],
      ['baseline/mcp-client/c8', null, null],
      ['distributed/mcp-client/contention', 'baseline/mcp-client/c8', 6],
      ['distributed/http/episode-late', 'baseline/http/c1', 2],
      ['distributed/http/log-read', null, null],
    ]);
  });
});

describe('checkTargets (issue 7 targets)', () => {
  const base = [
    scenario('baseline', 'http', 'c1', 1),
    scenario('baseline', 'http', 'c32', 30, { summary: { callsPerSec: 1000 } as never }),
  ];

  it.each([
    ['distributed c1 p50 overhead (http)', 4, 'PASS 3.00 ms'],
    ['distributed c1 p50 overhead (http)', 4.01, 'MISS 3.01 ms'],
    ['distributed c1 p99 overhead (http)', 13, 'PASS 12.00 ms'],
    ['distributed c1 p99 overhead (http)', 14, 'MISS 13.00 ms'],
  ])('%s with World at %d ms against 1 ms is %s', (target, worldMs, expected) => {
    const all = [...base, scenario('distributed', 'http', 'c1', worldMs, { logEntries: 1000 })];
    attachBaselines(all);
    expect(status(checkTargets(all, 100_000), target)).toBe(expected);
  });

  it.each([
    [500, 'PASS 50.0 %'],
    [499, 'MISS 49.9 %'],
  ])('c32 throughput %d calls/s against 1000 is %s', (perSec, expected) => {
    const all = [
      ...base,
      scenario('distributed', 'http', 'c32', 60, { summary: { callsPerSec: perSec } as never }),
    ];
    attachBaselines(all);
    expect(status(checkTargets(all, 100_000), 'distributed c32 calls/s')).toBe(expected);
  });

  it.each([
    [350, 'PASS 35.0 %'],
    [349, 'MISS 34.9 %'],
  ])('embedded c32 throughput %d calls/s against 1000 is %s (issue 13)', (perSec, expected) => {
    const all = [
      ...base,
      scenario('embedded', 'http', 'c32', 60, { summary: { callsPerSec: perSec } as never }),
    ];
    attachBaselines(all);
    expect(status(checkTargets(all, 100_000), 'embedded c32 calls/s')).toBe(expected);
  });

  it.each([
    [{ 'world-embedded': 2, postgres: 1, harness: 9 }, 'PASS 3.00×'],
    [{ 'world-embedded': 2, postgres: 1.1, harness: 0 }, 'MISS 3.10×'],
  ])(
    "embedded c32 machine CPU per call %j against the baseline's 1 ms is %s (issue 13; the harness is not World)",
    (cpu, expected) => {
      const all = [
        scenario('baseline', 'http', 'c32', 30, { cpuMsPerCall: { baseline: 1, harness: 5 } }),
        scenario('embedded', 'http', 'c32', 60, { cpuMsPerCall: cpu }),
      ];
      attachBaselines(all);
      expect(status(checkTargets(all, 100_000), 'embedded c32 machine CPU')).toBe(expected);
    },
  );

  it.each([
    [10, 11, 'PASS 10.0 %'],
    [10, 11.5, 'MISS 15.0 %'],
    [10, 8, 'PASS -20.0 %'],
  ])('growth from p50 %d ms to %d ms is %s', (small, large, expected) => {
    const all = [
      scenario('distributed', 'http', 'c1', small, { logEntries: 1000 }),
      scenario('distributed', 'http', 'c1', large, { logEntries: 100_000 }),
    ];
    expect(status(checkTargets(all, 100_000), 'growth: c1 p50')).toBe(expected);
  });

  it('fails "every call committed" when a scenario gained fewer entries than it answered calls', () => {
    const all = [
      scenario('distributed', 'http', 'c8', 5, { committed: { calls: 100, entries: 100 } }),
      scenario('distributed', 'http', 'c32', 5, {
        id: 'distributed/http/c32',
        committed: { calls: 100, entries: 99 },
      }),
    ];
    expect(status(checkTargets(all, 100_000), 'every call')).toBe(
      'MISS off in distributed/http/c32',
    );
  });

  it('takes the worst RSS peak of a service over the 32-client runs', () => {
    const all = [
      scenario('distributed', 'http', 'c32', 5, { rssPeakMb: { gateway: 150, ledger: 120 } }),
      scenario('distributed', 'mcp-client', 'c32', 5, { rssPeakMb: { gateway: 201, ledger: 110 } }),
    ];
    const checks = checkTargets(all, 100_000);
    expect([
      status(checks, 'gateway peak RSS'),
      status(checks, 'ledger peak RSS'),
      status(checks, 'broker peak RSS'),
    ]).toEqual(['MISS 201 MB', 'PASS 120 MB', 'N/A not measured']);
  });

  it('marks targets without their scenarios N/A', () => {
    expect(checkTargets([], 100_000).every((c) => c.status === 'N/A')).toBe(true);
  });
});
