/**
 * One measured phase of the profiling pass (`--profile`) on a system with NATS and PostgreSQL
 * (World distributed or the floor): CPU per call of every process, the NATS tap's requests and
 * hop times per subject, and pg_stat_activity samples with the database's counters per call.
 */
import { loadavg } from 'node:os';
import type { DriverResult } from '../drivers/driver.js';
import { cpuPerCall, cpuSnapshot } from '../proc.js';
import { percentile, summarize, type Summary } from '../stats.js';
import type { Target } from '../targets/target.js';
import type { PgSampler, StatementSamples } from './pg-sampler.js';
import type { NatsTap, SubjectStats } from './tap.js';

/** Statements listed per phase. */
const TOP_STATEMENTS = 12;

function perCallCounters(
  before: Record<string, number>,
  after: Record<string, number>,
  calls: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const d = (v - (before[k] ?? 0)) / calls;
    if (d > 0) out[k] = d;
  }
  return out;
}

/** Now on CLOCK_MONOTONIC in µs, the clock V8 stamps --cpu-prof samples with. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** One profiled phase. */
export interface PhaseReport {
  name: string;
  /** the phase's interval on CLOCK_MONOTONIC, µs (the clock of --cpu-prof samples) */
  windowUs: [number, number];
  calls: number;
  summary: Summary;
  cpuMsPerCall: Record<string, number>;
  loadavg1: number;
  /** per subject: requests and events per call, and the hop's observed p50/p99 */
  nats: Array<{
    subject: string;
    perCall: number;
    eventsPerCall: number;
    p50Ms: number | null;
    p99Ms: number | null;
  }>;
  natsRequestsPerCall: number;
  pg: {
    samples: number;
    statements: Array<StatementSamples & { share: number }>;
    /** database counters per call (transactions, rows, scans), zero rows left out */
    perCall: Record<string, number>;
  };
}

/**
 * Runs `run` as one phase, with the tap and the sampler counting.
 * @param target the system (its watched processes are snapshotted before and after)
 */
export async function phase(
  name: string,
  target: Pick<Target, 'watched'>,
  tap: NatsTap,
  sampler: PgSampler,
  run: () => Promise<DriverResult>,
  log: (l: string) => void,
): Promise<PhaseReport> {
  const watched = [...(await target.watched()), { name: 'harness', pid: process.pid }];
  const before = cpuSnapshot(watched);
  const countersBefore = await sampler.counters();
  tap.start();
  sampler.start();
  const startUs = monotonicUs();
  const result = await run();
  const endUs = monotonicUs();
  const pg = await sampler.stop();
  const countersAfter = await sampler.counters();
  const nats = await tap.stop();
  const cpu = cpuPerCall(
    before,
    cpuSnapshot([...watched, ...(await target.watched())]),
    result.completed,
  );
  const summary = summarize(result.latenciesMs, result.wallMs, result.errors);
  const calls = result.completed;
  const subjects = [...nats.entries()]
    .map(([subject, s]: [string, SubjectStats]) => ({
      subject,
      perCall: s.requests / calls,
      eventsPerCall: s.events / calls,
      p50Ms: s.latenciesMs.length === 0 ? null : percentile(s.latenciesMs, 0.5),
      p99Ms: s.latenciesMs.length === 0 ? null : percentile(s.latenciesMs, 0.99),
    }))
    .sort((a, b) => b.perCall + b.eventsPerCall - (a.perCall + a.eventsPerCall));
  const statements = pg.statements
    .slice(0, TOP_STATEMENTS)
    .map((s) => ({ ...s, share: pg.samples === 0 ? 0 : s.active / pg.samples }));
  log(
    `  ${name}: ${calls} calls, p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms, ${summary.callsPerSec.toFixed(0)}/s, load ${loadavg()[0]!.toFixed(1)}`,
  );
  return {
    name,
    windowUs: [startUs, endUs],
    calls,
    summary,
    cpuMsPerCall: cpu,
    loadavg1: loadavg()[0]!,
    nats: subjects,
    natsRequestsPerCall: subjects.reduce((n, s) => n + s.perCall, 0),
    pg: {
      samples: pg.samples,
      statements,
      perCall: perCallCounters(countersBefore, countersAfter, calls),
    },
  };
}

/** Prints a phase's figures. */
export function printPhase(p: PhaseReport, log: (l: string) => void): void {
  log(
    `\n== ${p.name}: ${p.calls} calls, p50 ${p.summary.p50.toFixed(2)} ms, p99 ${p.summary.p99.toFixed(2)} ms, ${p.summary.callsPerSec.toFixed(0)} calls/s (load ${p.loadavg1.toFixed(1)})`,
  );
  log(
    `CPU ms per call: ${Object.entries(p.cpuMsPerCall)
      .map(([n, v]) => `${n} ${v.toFixed(2)}`)
      .join(', ')}`,
  );
  log(`NATS: ${p.natsRequestsPerCall.toFixed(2)} requests per call`);
  for (const s of p.nats) {
    log(
      `  ${s.subject.padEnd(28)} ${s.perCall.toFixed(2)} req/call ${s.eventsPerCall > 0 ? `${s.eventsPerCall.toFixed(2)} events/call ` : ''}${s.p50Ms === null ? '' : `observed p50 ${s.p50Ms.toFixed(2)} ms p99 ${s.p99Ms!.toFixed(2)} ms`}`,
    );
  }
  log(
    `PostgreSQL per call: ${Object.entries(p.pg.perCall)
      .filter(([, v]) => v >= 0.05)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
  );
  log(
    `PostgreSQL: ${p.pg.samples} samples of pg_stat_activity; statements by share of samples with a backend running them:`,
  );
  for (const s of p.pg.statements) {
    log(
      `  ${(s.share * 100).toFixed(1).padStart(5)} %  [${Object.entries(s.waits)
        .map(([w, n]) => `${w} ${n}`)
        .join(', ')}]  ${s.query.slice(0, 160)}`,
    );
  }
}
