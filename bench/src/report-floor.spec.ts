import { attachBaselines, checkTargets } from './report.js';
import type { TargetCheck } from './report-floor.js';
import { attachFloor, checkFloorTargets, machineCpuMs } from './report-floor.js';
import type { ScenarioResult } from './scenarios.js';
import { summarize } from './stats.js';

/** A scenario whose calls all took `ms` (p50 = p99 = ms) at `perSec` calls/s. */
function scenario(
  target: ScenarioResult['target'],
  driver: ScenarioResult['driver'],
  kind: ScenarioResult['scenario'],
  ms: number,
  extra: Partial<ScenarioResult> & { perSec?: number } = {},
): ScenarioResult {
  const calls = 100;
  const perSec = extra.perSec ?? 1000 / ms;
  const { perSec: _, ...rest } = extra;
  return {
    id: `${target}/${driver}/${kind}`,
    target,
    driver,
    scenario: kind,
    clients: 1,
    episodes: 1,
    summary: summarize(Array(calls).fill(ms), (calls * 1000) / perSec),
    rssPeakMb: {},
    ...rest,
  } as ScenarioResult;
}

function status(checks: TargetCheck[], prefix: string): string {
  const c = checks.find((x) => x.target.startsWith(prefix));
  return c === undefined ? 'absent' : `${c.status} ${c.measured}`;
}

describe('machineCpuMs', () => {
  it('sums every process of the system, the harness left out', () => {
    expect(
      machineCpuMs(
        scenario('floor', 'http', 'c32', 1, {
          cpuMsPerCall: { gateway: 1, planner: 0.5, postgres: 1.25, nats: 0.25, harness: 9 },
        }),
      ),
    ).toBe(3);
    expect(machineCpuMs(scenario('floor', 'http', 'c32', 1))).toBeUndefined();
  });
});

describe('attachFloor (issue 19: World ÷ floor at the same percentile, driver and scenario)', () => {
  it('compares each World scenario with the floor scenario of its kind; episode windows with floor c1 (http)', () => {
    const all = [
      scenario('floor', 'http', 'c1', 4, { cpuMsPerCall: { gateway: 2, harness: 1 } }),
      scenario('floor', 'mcp-client', 'contention', 5),
      scenario('distributed', 'http', 'c1', 8, { cpuMsPerCall: { gateway: 5, broker: 3 } }),
      scenario('distributed', 'mcp-client', 'contention', 10),
      scenario('distributed', 'http', 'episode-late', 6),
      scenario('embedded', 'http', 'c1', 5),
      scenario('distributed', 'http', 'log-read', 3),
      scenario('distributed', 'http', 'c32', 3),
    ];
    attachFloor(all);
    expect(
      all.map((s) => [
        s.id,
        s.floorId ?? null,
        s.floorOverhead?.latency.p50.ratio ?? null,
        s.floorCpuRatio ?? null,
      ]),
    ).toEqual([
      ['floor/http/c1', null, null, null],
      ['floor/mcp-client/contention', null, null, null],
      ['distributed/http/c1', 'floor/http/c1', 2, 4],
      ['distributed/mcp-client/contention', 'floor/mcp-client/contention', 2, null],
      ['distributed/http/episode-late', 'floor/http/c1', 1.5, null],
      ['embedded/http/c1', 'floor/http/c1', 1.25, null],
      ['distributed/http/log-read', null, null, null],
      ['distributed/http/c32', null, null, null],
    ]);
  });

  it('holds embedded World to the embedded floor (issue 13) when the run measured it, distributed World to the floor', () => {
    const all = [
      scenario('floor', 'http', 'c32', 4, { cpuMsPerCall: { gateway: 2, postgres: 2 } }),
      scenario('floor-single', 'http', 'c32', 2, {
        cpuMsPerCall: { 'floor-single': 1.5, postgres: 1, harness: 7 },
      }),
      scenario('distributed', 'http', 'c32', 8, { cpuMsPerCall: { gateway: 4, postgres: 4 } }),
      scenario('embedded', 'http', 'c32', 6, {
        cpuMsPerCall: { 'world-embedded': 4, postgres: 1 },
      }),
    ];
    attachFloor(all);
    expect(all.map((s) => [s.id, s.floorId ?? null, s.floorCpuRatio ?? null])).toEqual([
      ['floor/http/c32', null, null],
      ['floor-single/http/c32', null, null],
      ['distributed/http/c32', 'floor/http/c32', 2],
      ['embedded/http/c32', 'floor-single/http/c32', 2],
    ]);
  });

  it('checks that every call of the embedded floor committed, when it ran', () => {
    const ran = checkFloorTargets([
      scenario('floor-single', 'http', 'c1', 2, { committed: { calls: 100, entries: 99 } }),
    ]);
    expect(status(ran, 'embedded floor: every call')).toBe('MISS off in floor-single/http/c1');
    expect(status(checkFloorTargets([]), 'embedded floor: every call')).toBe('absent');
  });

  it('leaves the floor compared with the baseline (attachBaselines), as any system', () => {
    const all = [scenario('baseline', 'http', 'c8', 1), scenario('floor', 'http', 'contention', 3)];
    attachBaselines(all);
    expect([all[1]!.baselineId, all[1]!.overhead?.latency.p50.ratio]).toEqual([
      'baseline/http/c8',
      3,
    ]);
  });
});

describe('checkFloorTargets (issue 19 targets)', () => {
  const floor = [
    scenario('floor', 'http', 'c1', 4),
    scenario('floor', 'http', 'c32', 40, {
      perSec: 500,
      cpuMsPerCall: { gateway: 1, postgres: 1, harness: 5 },
    }),
  ];
  const check = (world: ScenarioResult[]) => {
    const all = [...floor, ...world];
    attachFloor(all);
    return checkFloorTargets(all);
  };

  it.each([
    [5, 'PASS 1.25×'],
    [5.01, 'MISS 1.25×'],
  ])('c1 p50 at %d ms against the floor’s 4 ms is %s', (ms, expected) => {
    expect(
      status(
        check([scenario('distributed', 'http', 'c1', ms)]),
        "distributed c1 p50 ÷ floor's (http)",
      ),
    ).toBe(expected);
  });

  it.each([
    [6, 'PASS 1.50×'],
    [6.04, 'MISS 1.51×'],
  ])('c1 p99 at %d ms against the floor’s 4 ms is %s', (ms, expected) => {
    expect(
      status(
        check([scenario('distributed', 'http', 'c1', ms)]),
        "distributed c1 p99 ÷ floor's (http)",
      ),
    ).toBe(expected);
  });

  it.each([
    [400, 'PASS 0.80×'],
    [399, 'MISS 0.80×'],
  ])('c32 at %d calls/s against the floor’s 500 is %s', (perSec, expected) => {
    expect(
      status(
        check([scenario('distributed', 'http', 'c32', 80, { perSec })]),
        "distributed c32 calls/s ÷ floor's",
      ),
    ).toBe(expected);
  });

  it.each([
    [{ gateway: 1.5, broker: 1, harness: 3 }, 'PASS 1.25×'],
    [{ gateway: 1.5, broker: 1.02, harness: 0 }, 'MISS 1.26×'],
  ])('c32 machine CPU %j against the floor’s 2 ms is %s', (cpuMsPerCall, expected) => {
    expect(
      status(
        check([scenario('distributed', 'http', 'c32', 80, { perSec: 500, cpuMsPerCall })]),
        "distributed c32 machine CPU per call ÷ floor's",
      ),
    ).toBe(expected);
  });

  it('fails the floor’s own commit check when an entry is missing, and keeps it out of World’s', () => {
    const all = [
      scenario('floor', 'http', 'c1', 4, { committed: { calls: 100, entries: 99 } }),
      scenario('distributed', 'http', 'c1', 5, { committed: { calls: 100, entries: 100 } }),
    ];
    const checks = checkTargets(all, 100_000);
    expect([status(checks, 'floor: every call'), status(checks, 'every call')]).toEqual([
      'MISS off in floor/http/c1',
      'PASS 1 scenarios',
    ]);
  });

  it('marks every floor target N/A without the floor', () => {
    expect(
      checkFloorTargets([scenario('distributed', 'http', 'c1', 5)]).map((c) => c.status),
    ).toEqual(['N/A', 'N/A', 'N/A', 'N/A', 'N/A', 'N/A', 'N/A']);
  });
});
