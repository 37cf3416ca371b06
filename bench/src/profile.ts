/**
 * `pnpm bench --profile [--quick] [--keep]`: where one call's time goes in distributed mode,
 * with nothing added to the services (issue 7): the four services run with `--cpu-prof`; a
 * passive NATS tap counts requests per call and times every hop; pg_stat_activity is sampled
 * for the statements the database is busy with; the log-range statement is EXPLAIN ANALYZEd.
 * Phases: concurrency 1, 32 clients over 32 episodes, log reads. Writes
 * bench/results/<date>-profile.json and prints the findings. `--keep` leaves the database (and
 * prints its URL) for further EXPLAIN ANALYZE by hand.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOG_PAGE, type Profile } from './config.js';
import type { DriverResult } from './drivers/driver.js';
import { isOkToolAnswer, runHttpLoad, TOOL_CALL_BODY } from './drivers/http-load.js';
import { writeFixture } from './fixture.js';
import { cpuPerCall, cpuSnapshot } from './proc.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './profile/cpuprofile.js';
import { PgSampler, type StatementSamples } from './profile/pg-sampler.js';
import { NatsTap, type SubjectStats } from './profile/tap.js';
import { growLog } from './scenarios.js';
import { percentile, summarize, type Summary } from './stats.js';
import { adminUrl, startDistributedTarget, type DistributedTarget } from './targets/distributed.js';
import type { ClientCredential } from './targets/target.js';
import { RssSampler } from './proc.js';

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

const RESULTS_DIR =
  process.env.WORLD_BENCH_RESULTS_DIR ?? fileURLToPath(new URL('../results/', import.meta.url));
/** Statements listed per phase. */
const TOP_STATEMENTS = 12;

/** One profiled phase. */
interface PhaseReport {
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

async function phase(
  name: string,
  target: DistributedTarget,
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

function printPhase(p: PhaseReport, log: (l: string) => void): void {
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

/** Runs the profiling pass (see the module comment). */
export async function runProfile(
  profile: Profile,
  log: (line: string) => void,
  keep = false,
): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'world-bench-profile-'));
  const profDir = join(root, 'cpuprof');
  await mkdir(profDir, { recursive: true });
  const fixture = await writeFixture(root);
  const runTag = `p${Date.now().toString(36)}`;
  log(
    `World bench --profile (${profile.name}): services under --cpu-prof, NATS tap, pg_stat_activity sampling`,
  );
  const target = await startDistributedTarget(root, fixture, runTag, [
    '--cpu-prof',
    `--cpu-prof-dir=${profDir}`,
  ]);
  const rss = new RssSampler(target.processes);
  const tap = await NatsTap.open(target.natsUrl, target.prefix);
  const sampler = await PgSampler.open(adminUrl(), target.databaseUrl);
  const phases: PhaseReport[] = [];
  const explains: Record<string, string> = {};
  const pids = Object.fromEntries(target.processes.map((p) => [p.pid, p.name]));
  let closed = false;
  try {
    await growLog({ profile, rss, log }, target, profile.growthSmall);
    const call = (creds: ClientCredential[], amount: number) =>
      runHttpLoad({
        url: target.mcpUrl,
        method: 'POST',
        connections: creds,
        body: TOOL_CALL_BODY,
        verify: isOkToolAnswer,
        amount,
      });
    const one = await target.clients(1, 'prof-c1');
    await call(one, profile.warmup);
    phases.push(
      await phase(
        'concurrency 1 (http)',
        target,
        tap,
        sampler,
        () => call(one, profile.callsC1),
        log,
      ),
    );
    const many = await target.clients(32, 'prof-c32');
    await call(many, Math.max(profile.warmup, many.length));
    phases.push(
      await phase(
        '32 clients over 32 episodes (http)',
        target,
        tap,
        sampler,
        () => call(many, profile.callsConcurrent),
        log,
      ),
    );
    const head = (await target.headIndex())!;
    const paths = [0, Math.floor(head / 2), Math.max(0, head - LOG_PAGE)].map(
      (f) => `/v1/log?from=${f}&limit=${LOG_PAGE}`,
    );
    const reads = () =>
      runHttpLoad({
        url: `${target.baseUrl}/v1/log`,
        method: 'GET',
        connections: [one[0]!],
        paths,
        amount: profile.logReads,
        verify: (b) => b.startsWith('{"items":['),
      });
    phases.push(
      await phase(
        `GET /v1/log?limit=${LOG_PAGE} at ${head} entries`,
        target,
        tap,
        sampler,
        reads,
        log,
      ),
    );
    explains['ledger.log.range'] = await PgSampler.explain(
      target.databaseUrl,
      `SELECT entry_index, entry_hash, semantics_epoch, transition_fn, interpreter, prev_entry_hash, written_by, transition_ref
       FROM ledger.log_entries WHERE entry_index >= $1 ORDER BY entry_index LIMIT ${LOG_PAGE}`,
      [Math.floor(head / 2)],
    );
    await tap.close();
    await sampler.close();
    await target.rpc.close().catch(() => undefined);
    if (keep) {
      // Stop the services (so their profiles are written) but leave NATS and the database.
      for (const s of ['gateway', 'planner', 'broker', 'ledger'] as const)
        await target.services[s].stop();
      log(`\n--keep: database left at ${target.databaseUrl}`);
      await target.nats.stop();
    } else {
      await target.close();
    }
    closed = true;
  } finally {
    if (!closed) await target.close().catch(() => undefined);
  }

  // Per service: the tools/call phases together, and the log reads, each from its own windows.
  const callWindows = phases.filter((p) => !p.name.startsWith('GET')).map((p) => p.windowUs);
  const readWindows = phases.filter((p) => p.name.startsWith('GET')).map((p) => p.windowUs);
  const profiles: Record<string, { calls: ProfileSummary; reads: ProfileSummary }> = {};
  for (const file of await readdir(profDir)) {
    const pid = Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(file)?.[1]);
    const name = pids[pid] ?? file;
    const cpu = JSON.parse(await readFile(join(profDir, file), 'utf8')) as CpuProfile;
    profiles[name] = {
      calls: summarizeProfile(cpu, 20, callWindows),
      reads: summarizeProfile(cpu, 10, readWindows),
    };
  }
  for (const p of phases) printPhase(p, log);
  log('\nEXPLAIN ANALYZE of the log range (ledger.log.range):');
  log(explains['ledger.log.range']!);
  for (const [name, both] of Object.entries(profiles)) {
    for (const [label, s] of [
      ['tools/call phases', both.calls],
      ['log-read phase', both.reads],
    ] as const) {
      log(
        `\n== CPU profile of ${name}, ${label}: ${s.busyMs.toFixed(0)} ms busy of ${s.totalMs.toFixed(0)} ms`,
      );
      log(
        `by area:     ${s.areas.map((a) => `${a.name} ${(a.share * 100).toFixed(1)}%`).join(', ')}`,
      );
      log('by function (self time):');
      for (const f of s.functions) log(`  ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`);
      log(
        'by caller (native and Node-internal time charged to the library or World code that caused it):',
      );
      for (const f of s.callers) log(`  ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`);
    }
  }
  await mkdir(RESULTS_DIR, { recursive: true });
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const file = join(
    RESULTS_DIR,
    `${date.replace(/:/g, '-')}-profile${profile.name === 'quick' ? '-quick' : ''}.json`,
  );
  await writeFile(
    file,
    `${JSON.stringify({ date, mode: profile.name, phases, explains, cpuProfiles: profiles }, null, 2)}\n`,
  );
  log(`\nwrote ${file}`);
  // WORLD_BENCH_PROFILE_DIR keeps the raw .cpuprofile files (open them in Chrome DevTools).
  const keepDir = process.env.WORLD_BENCH_PROFILE_DIR;
  if (keepDir !== undefined) {
    await mkdir(keepDir, { recursive: true });
    for (const file of await readdir(profDir)) {
      const pid = Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(file)?.[1]);
      await copyFile(join(profDir, file), join(keepDir, `${pids[pid] ?? 'process'}-${file}`));
    }
    log(`raw profiles copied to ${keepDir}`);
  }
  await rm(root, { recursive: true, force: true });
}
