/**
 * World against the floor (issue 19): each World tools/call scenario compared with the floor's
 * scenario of the same kind and driver in the same run (World ÷ floor, beside World ÷ baseline),
 * machine CPU per call, and the checks of issue 19's targets. Pure: no I/O.
 */
import { DRIVERS } from './drivers/driver.js';
import { FLOOR_TARGETS } from './config.js';
import type { ScenarioResult } from './scenarios.js';
import { compare } from './stats.js';

/** One target of the bench (config.ts TARGETS, FLOOR_TARGETS), checked. */
export interface TargetCheck {
  target: string;
  /** what was measured, in the target's unit */
  measured: string;
  limit: string;
  status: 'PASS' | 'MISS' | 'N/A';
}

/** The floor scenario each World scenario is compared with (the episode windows: floor c1). */
const FLOOR_OF: Partial<Record<ScenarioResult['scenario'], ScenarioResult['scenario']>> = {
  c1: 'c1',
  c8: 'c8',
  c32: 'c32',
  contention: 'contention',
  'episode-early': 'c1',
  'episode-late': 'c1',
};

/**
 * Machine CPU per call of a scenario, ms: the CPU of every process of the system under test
 * (its services, nats-server, its database's PostgreSQL backends), the harness left out.
 * Undefined when the scenario has no CPU figures.
 */
export function machineCpuMs(s: ScenarioResult): number | undefined {
  if (s.cpuMsPerCall === undefined) return undefined;
  return Object.entries(s.cpuMsPerCall)
    .filter(([name]) => name !== 'harness')
    .reduce((a, [, v]) => a + v, 0);
}

/**
 * The floor each World mode is held to: distributed World against the four-process floor
 * (issue 19), embedded World against the one-process embedded floor (issue 13) when the run
 * measured it, else against the four-process floor.
 */
function floorTargetOf(
  scenarios: ScenarioResult[],
  world: 'distributed' | 'embedded',
): 'floor' | 'floor-single' {
  if (world === 'embedded' && scenarios.some((f) => f.target === 'floor-single'))
    return 'floor-single';
  return 'floor';
}

/** Attaches to each World tools/call scenario its floor counterpart and World ÷ floor. */
export function attachFloor(scenarios: ScenarioResult[]): void {
  for (const s of scenarios) {
    if (s.target !== 'distributed' && s.target !== 'embedded') continue;
    const kind = FLOOR_OF[s.scenario];
    if (kind === undefined) continue;
    const driver = s.scenario.startsWith('episode') ? 'http' : s.driver;
    const floorTarget = floorTargetOf(scenarios, s.target);
    const floor = scenarios.find(
      (f) => f.target === floorTarget && f.driver === driver && f.scenario === kind,
    );
    if (floor === undefined) continue;
    const world = machineCpuMs(s);
    const base = machineCpuMs(floor);
    s.floorId = floor.id;
    s.floorOverhead = compare(s.summary, floor.summary);
    if (world !== undefined && base !== undefined && base > 0) s.floorCpuRatio = world / base;
  }
}

const ratio = (v: number) => `${v.toFixed(2)}×`;

/**
 * One target checked (config.ts TARGETS, FLOOR_TARGETS): N/A when the value is missing or NaN,
 * else PASS when it lies on the limit's side (`≤`: at most, `≥`: at least), MISS otherwise.
 * @param fmt renders the value and the limit in the target's unit
 */
export function targetCheck(
  target: string,
  value: number | undefined,
  limit: number,
  fmt: (v: number) => string,
  cmp: '≤' | '≥' = '≤',
): TargetCheck {
  const missing = value === undefined || Number.isNaN(value);
  return {
    target,
    measured: missing ? 'not measured' : fmt(value),
    limit: `${cmp} ${fmt(limit)}`,
    status: missing ? 'N/A' : (cmp === '≤' ? value <= limit : value >= limit) ? 'PASS' : 'MISS',
  };
}

/** The scenario of one target, driver and kind in a run, if it ran. */
export function scenarioOf(
  scenarios: ScenarioResult[],
  target: ScenarioResult['target'],
  driver: ScenarioResult['driver'],
  scenario: ScenarioResult['scenario'],
): ScenarioResult | undefined {
  return scenarios.find(
    (s) => s.target === target && s.driver === driver && s.scenario === scenario,
  );
}

/**
 * The check that every call of the given scenarios answered and committed: one log entry per
 * call and no errors (N/A when none ran; MISS names the scenarios that are off).
 */
export function committedCheck(target: string, calls: ScenarioResult[]): TargetCheck {
  const off = calls.filter(
    (s) => s.committed!.calls !== s.committed!.entries || s.summary.errors > 0,
  );
  return {
    target,
    measured:
      calls.length === 0
        ? 'not measured'
        : off.length === 0
          ? `${calls.length} scenarios`
          : `off in ${off.map((s) => s.id).join(', ')}`,
    limit: 'all',
    status: calls.length === 0 ? 'N/A' : off.length === 0 ? 'PASS' : 'MISS',
  };
}

/** Checks issue 19's targets (N/A when the floor or World's scenario is missing). */
export function checkFloorTargets(scenarios: ScenarioResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const add = (target: string, value: number | undefined, limit: number, atMost: boolean) =>
    checks.push(targetCheck(target, value, limit, ratio, atMost ? '≤' : '≥'));
  const world = (driver: ScenarioResult['driver'], scenario: ScenarioResult['scenario']) =>
    scenarioOf(scenarios, 'distributed', driver, scenario);
  for (const driver of DRIVERS) {
    const c1 = world(driver, 'c1');
    add(
      `distributed c1 p50 ÷ floor's (${driver})`,
      c1?.floorOverhead?.latency.p50.ratio,
      FLOOR_TARGETS.c1P50Ratio,
      true,
    );
    add(
      `distributed c1 p99 ÷ floor's (${driver})`,
      c1?.floorOverhead?.latency.p99.ratio,
      FLOOR_TARGETS.c1P99Ratio,
      true,
    );
  }
  const c32 = world('http', 'c32');
  add(
    "distributed c32 calls/s ÷ floor's (http, 32 episodes)",
    c32?.floorOverhead?.throughputRatio,
    FLOOR_TARGETS.c32ThroughputRatio,
    false,
  );
  add(
    "distributed c32 machine CPU per call ÷ floor's (http)",
    c32?.floorCpuRatio,
    FLOOR_TARGETS.c32CpuRatio,
    true,
  );
  checks.push(
    committedCheck(
      'floor: every call answered and committed (one entry per call, no errors)',
      scenarios.filter((s) => s.target === 'floor' && s.committed !== undefined),
    ),
  );
  const single = scenarios.filter((s) => s.target === 'floor-single' && s.committed !== undefined);
  if (single.length > 0)
    checks.push(
      committedCheck(
        'embedded floor: every call answered and committed (one entry per call, no errors)',
        single,
      ),
    );
  return checks;
}
