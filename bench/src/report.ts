/**
 * The report of a run: World's scenarios compared with the baseline's at the same concurrency
 * and driver, the target checker (PASS/MISS per target of issue 7), the printed table, and the
 * markdown table bench/README.md carries. Pure: no I/O.
 */
import { DRIVERS } from './drivers/driver.js';
import { TARGETS, type Profile } from './config.js';
import type { ScenarioResult } from './scenarios.js';
import {
  checkFloorTargets,
  committedCheck,
  machineCpuMs,
  scenarioOf,
  targetCheck,
  type TargetCheck,
} from './report-floor.js';
import { compare, relativeChange } from './stats.js';
import type { TargetKind } from './targets/target.js';

/** Scenarios compared with a baseline scenario of another kind (contention ↔ c8). */
const BASELINE_OF: Partial<Record<ScenarioResult['scenario'], ScenarioResult['scenario']>> = {
  c1: 'c1',
  c8: 'c8',
  c32: 'c32',
  contention: 'c8',
  'episode-early': 'c1',
  'episode-late': 'c1',
};

/** Everything a run writes to bench/results/<date>.json. */
export interface RunReport {
  date: string;
  mode: Profile['name'];
  profile: Profile;
  machine: { cpus: number; node: string; loadavgStart: number[]; loadavgEnd: number[] };
  /** the commit the services were built from, and whether the tree had uncommitted changes */
  git?: { head: string; dirty: boolean };
  durationS: number;
  scenarios: ScenarioResult[];
  /** VmHWM of every process at the end of its target's run, MB */
  rssHighWaterMb: Partial<Record<TargetKind, Record<string, number>>>;
  targets: TargetCheck[];
  /** steps that failed (the run went on without them) */
  failures: string[];
  notes: string[];
}

/** Attaches to each World tools/call scenario its baseline counterpart and the comparison. */
export function attachBaselines(scenarios: ScenarioResult[]): void {
  for (const s of scenarios) {
    if (s.target === 'baseline') continue;
    const kind = BASELINE_OF[s.scenario];
    if (kind === undefined) continue;
    const driver = s.scenario.startsWith('episode') ? 'http' : s.driver;
    const base = scenarios.find(
      (b) => b.target === 'baseline' && b.driver === driver && b.scenario === kind,
    );
    if (base === undefined) continue;
    s.baselineId = base.id;
    s.overhead = compare(s.summary, base.summary);
  }
}

const ms = (v: number) => `${v.toFixed(2)} ms`;
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/**
 * The c1 latency overheads (each driver; p99 where the target has one) and the c32 throughput
 * ratio of one World target against the baseline (issue 7's targets).
 */
function overheadChecks(
  scenarios: ScenarioResult[],
  target: 'distributed' | 'embedded',
  limits: { c1P50Ms: number; c1P99Ms?: number; c32Ratio: number },
): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const driver of DRIVERS) {
    const c1 = scenarioOf(scenarios, target, driver, 'c1');
    const p50 = c1?.overhead?.latency.p50.diffMs;
    checks.push(targetCheck(`${target} c1 p50 overhead (${driver})`, p50, limits.c1P50Ms, ms));
    if (limits.c1P99Ms === undefined) continue;
    const p99 = c1?.overhead?.latency.p99.diffMs;
    checks.push(targetCheck(`${target} c1 p99 overhead (${driver})`, p99, limits.c1P99Ms, ms));
  }
  checks.push(
    targetCheck(
      `${target} c32 calls/s vs baseline (http, 32 episodes)`,
      scenarioOf(scenarios, target, 'http', 'c32')?.overhead?.throughputRatio,
      limits.c32Ratio,
      pct,
      '≥',
    ),
  );
  return checks;
}

/** Checks every target of issue 7 against the scenarios of a run (N/A when one is missing). */
export function checkTargets(scenarios: ScenarioResult[], largeLog: number): TargetCheck[] {
  const checks: TargetCheck[] = overheadChecks(scenarios, 'distributed', {
    c1P50Ms: TARGETS.distributedC1P50OverheadMs,
    c1P99Ms: TARGETS.distributedC1P99OverheadMs,
    c32Ratio: TARGETS.distributedC32ThroughputRatio,
  });
  const add = (
    target: string,
    value: number | undefined,
    limit: number,
    fmt: (v: number) => string,
  ) => checks.push(targetCheck(target, value, limit, fmt));
  checks.push(
    committedCheck(
      'every call answered and committed (one entry per call, no errors)',
      scenarios.filter(
        (s) => s.committed !== undefined && s.target !== 'floor' && s.target !== 'floor-single',
      ),
    ),
  );
  checks.push(
    ...overheadChecks(scenarios, 'embedded', {
      c1P50Ms: TARGETS.embeddedC1P50OverheadMs,
      c32Ratio: TARGETS.embeddedC32ThroughputRatio,
    }),
  );
  const ec32 = scenarioOf(scenarios, 'embedded', 'http', 'c32');
  const bc32 = scenarioOf(scenarios, 'baseline', 'http', 'c32');
  const baseCpu = bc32?.cpuMsPerCall?.baseline;
  add(
    'embedded c32 machine CPU per call (World + its PostgreSQL) vs baseline',
    ec32 !== undefined && baseCpu !== undefined && baseCpu > 0
      ? (machineCpuMs(ec32) ?? NaN) / baseCpu
      : undefined,
    TARGETS.embeddedC32CpuRatio,
    (v) => `${v.toFixed(2)}×`,
  );
  const growth = scenarios.filter(
    (s) =>
      s.target === 'distributed' &&
      s.driver === 'http' &&
      s.scenario === 'c1' &&
      s.logEntries !== undefined,
  );
  const small = growth[0];
  const large = growth.length > 1 ? growth[growth.length - 1] : undefined;
  add(
    `growth: c1 p50 at ${large?.logEntries ?? largeLog} entries vs at ${small?.logEntries ?? '?'}`,
    small && large ? relativeChange(large.summary.p50, small.summary.p50) : undefined,
    TARGETS.growthP50Change,
    pct,
  );
  const early = scenarios.find((s) => s.scenario === 'episode-early');
  const late = scenarios.find((s) => s.scenario === 'episode-late');
  add(
    'growth: episode call 10,000 p50 vs call 10',
    early && late ? relativeChange(late.summary.p50, early.summary.p50) : undefined,
    TARGETS.episodeP50Change,
    pct,
  );
  const reads = scenarios.filter((s) => s.target === 'distributed' && s.scenario === 'log-read');
  const bigRead = reads[reads.length - 1];
  add(
    `GET /v1/log?limit=500 p50 at ${bigRead?.logEntries ?? largeLog} entries`,
    bigRead?.summary.p50,
    TARGETS.logReadP50Ms,
    ms,
  );
  const c32Runs = scenarios.filter((s) => s.target === 'distributed' && s.scenario === 'c32');
  for (const service of ['gateway', 'planner', 'broker', 'ledger']) {
    const peaks = c32Runs
      .map((s) => s.rssPeakMb[service])
      .filter((v): v is number => v !== undefined);
    add(
      `${service} peak RSS under 32 clients`,
      peaks.length === 0 ? undefined : Math.max(...peaks),
      TARGETS.serviceRssMb,
      (v) => `${v.toFixed(0)} MB`,
    );
  }
  return [...checks, ...checkFloorTargets(scenarios)];
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
}

const HEAD = [
  'scenario',
  'driver',
  'clients',
  'calls',
  'err',
  'p50',
  'p90',
  'p99',
  'max',
  'calls/s',
  'Δp50',
  '×p50',
  'Δp99',
  '×p99',
  '×calls/s',
  '×p50 floor',
  '×p99 floor',
  '×calls/s floor',
  'peak RSS MB',
];

function rows(scenarios: ScenarioResult[]): string[][] {
  return scenarios.map((s) => {
    const o = s.overhead;
    const f = s.floorOverhead;
    const rss = Object.entries(s.rssPeakMb)
      .filter(([name]) => name !== 'harness')
      .map(([name, mb]) => `${name} ${mb.toFixed(0)}`)
      .join(', ');
    return [
      `${s.target}/${s.scenario}${s.logEntries === undefined ? '' : `@${s.logEntries}`}`,
      s.driver,
      String(s.clients),
      String(s.summary.calls),
      String(s.summary.errors),
      s.summary.p50.toFixed(2),
      s.summary.p90.toFixed(2),
      s.summary.p99.toFixed(2),
      s.summary.max.toFixed(1),
      s.summary.callsPerSec.toFixed(0),
      o ? `+${o.latency.p50.diffMs.toFixed(2)}` : '',
      o ? o.latency.p50.ratio.toFixed(2) : '',
      o ? `+${o.latency.p99.diffMs.toFixed(2)}` : '',
      o ? o.latency.p99.ratio.toFixed(2) : '',
      o ? o.throughputRatio.toFixed(2) : '',
      f ? f.latency.p50.ratio.toFixed(2) : '',
      f ? f.latency.p99.ratio.toFixed(2) : '',
      f ? f.throughputRatio.toFixed(2) : '',
      rss,
    ];
  });
}

const CPU_ORDER = [
  'baseline',
  'world-embedded',
  'gateway',
  'planner',
  'broker',
  'ledger',
  'postgres',
  'nats',
  'harness',
];

/**
 * CPU ms per call of each process, one row per scenario (the load-independent cost); `machine`
 * is the system's total (harness left out), `×floor` World's machine CPU ÷ the floor's.
 */
function cpuTable(scenarios: ScenarioResult[]): string[][] {
  const names = CPU_ORDER.filter((n) => scenarios.some((s) => s.cpuMsPerCall?.[n] !== undefined));
  const head = ['scenario', 'driver', 'load', ...names, 'machine', '×floor'];
  const body = scenarios.map((s) => {
    const cpu = s.cpuMsPerCall ?? {};
    const machine = machineCpuMs(s);
    return [
      `${s.target}/${s.scenario}${s.logEntries === undefined ? '' : `@${s.logEntries}`}`,
      s.driver,
      s.loadavg1 === undefined ? '' : s.loadavg1.toFixed(1),
      ...names.map((n) => (cpu[n] === undefined ? '' : cpu[n]!.toFixed(2))),
      machine === undefined ? '' : machine.toFixed(2),
      s.floorCpuRatio === undefined ? '' : s.floorCpuRatio.toFixed(2),
    ];
  });
  return [head, ...body];
}

function aligned(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) => pad(r, widths));
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  return lines;
}

/** The table printed at the end of a run (latencies in ms; Δ and × against the baseline). */
export function formatTable(report: RunReport): string {
  const all = [HEAD, ...rows(report.scenarios)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) => pad(r, widths));
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  const checks = report.targets.map(
    (t) => `${t.status.padEnd(4)}  ${t.target}: ${t.measured} (target ${t.limit})`,
  );
  return [
    ...lines,
    '',
    'CPU ms per call (user + system, per process; load = 1-min load average of the box):',
    ...aligned(cpuTable(report.scenarios)),
    '',
    `targets (${report.mode} run${report.mode === 'quick' ? ': smoke only, not judged' : ''}):`,
    ...checks,
    ...failedSteps(report.failures),
  ].join('\n');
}

/** The closing list of steps that failed (none: no lines), in both the printed and the markdown report. */
function failedSteps(failures: string[]): string[] {
  if (failures.length === 0) return [];
  return ['', 'Failed steps (the run went on without them):', '', ...failures.map((f) => `- ${f}`)];
}

/** The same table as markdown, for bench/README.md. */
export function formatMarkdown(report: RunReport): string {
  const md = (r: string[]) => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const table = [
    md(HEAD),
    md(HEAD.map((_, i) => (i < 2 ? '---' : '---:'))),
    ...rows(report.scenarios).map(md),
  ];
  const cpu = cpuTable(report.scenarios);
  const cpuMd = [
    md(cpu[0]!),
    md(cpu[0]!.map((_, i) => (i < 2 ? '---' : '---:'))),
    ...cpu.slice(1).map(md),
  ];
  const checks = [
    md(['target', 'measured', 'limit', 'status']),
    md(['---', '---:', '---:', '---']),
    ...report.targets.map((t) => md([t.target, t.measured, t.limit, `**${t.status}**`])),
  ];
  const hwm = Object.entries(report.rssHighWaterMb)
    .map(
      ([kind, procs]) =>
        `${kind}: ${Object.entries(procs!)
          .map(([n, mb]) => `${n} ${mb.toFixed(0)} MB`)
          .join(', ')}`,
    )
    .join('; ');
  return [
    `Run ${report.date} (${report.mode})${report.git ? ` at ${report.git.head.slice(0, 7)}${report.git.dirty ? ' (uncommitted changes in the tree)' : ''}` : ''}, ${report.machine.cpus} CPUs, Node ${report.machine.node}, load average ${report.machine.loadavgStart.map((l) => l.toFixed(1)).join(' ')} at start, ${report.machine.loadavgEnd.map((l) => l.toFixed(1)).join(' ')} at end; ${report.durationS.toFixed(0)} s.`,
    '',
    ...table,
    '',
    `Peak RSS over the whole run (VmHWM): ${hwm}.`,
    '',
    'CPU ms per call (user + system of each process over the measured window; load = 1-minute load average of the machine at the end of the scenario):',
    '',
    ...cpuMd,
    '',
    ...checks,
    ...failedSteps(report.failures),
  ].join('\n');
}
