/**
 * The scenarios of issue 7 against one target each: concurrency 1, 8 and 32 (one episode per
 * client), one episode hammered by 8 clients, the log read, the log growth points and call 10 vs
 * call 10,000 of one episode. Each scenario: warm-up, then a fixed number of calls, summarized.
 */
import { CONTENTION_CLIENTS, LOG_PAGE, type Profile } from './config.js';
import type { DriverName, DriverResult } from './drivers/driver.js';
import { isOkToolAnswer, runHttpLoad, TOOL_CALL_BODY } from './drivers/http-load.js';
import { runMcpClients } from './drivers/mcp-client.js';
import { loadavg } from 'node:os';
import { cpuPerCall, cpuSnapshot, type CpuSnapshot, type RssSampler } from './proc.js';
import { summarize, type Comparison, type Summary } from './stats.js';
import type { DistributedTarget } from './targets/distributed.js';
import type { ClientCredential, Target, TargetKind } from './targets/target.js';
import { fillLog } from './world/fill.js';
import { pumpEpisode } from './world/pump.js';

/** The kinds of scenario. */
export type ScenarioKind =
  'c1' | 'c8' | 'c32' | 'contention' | 'log-read' | 'episode-early' | 'episode-late';

/** One measured scenario. */
export interface ScenarioResult {
  /** `<target>/<driver>/<scenario>[@<log entries>]` */
  id: string;
  target: TargetKind;
  driver: DriverName;
  scenario: ScenarioKind;
  clients: number;
  episodes: number;
  /** the log head's entryIndex when the scenario started (World) */
  logEntries?: number;
  summary: Summary;
  firstError?: string;
  /** peak VmRSS of each process during the scenario, MB */
  rssPeakMb: Record<string, number>;
  /** CPU time (user + system) each process spent per measured call, ms (postgres = its backends) */
  cpuMsPerCall?: Record<string, number>;
  /** the machine's 1-minute load average at the end of the scenario (other work on the box) */
  loadavg1?: number;
  /** tools/call scenarios on World: calls answered vs entries the log gained */
  committed?: { calls: number; entries: number };
  /** the baseline scenario this one is compared against, and the comparison */
  baselineId?: string;
  overhead?: Comparison;
  /** World: the floor scenario this one is compared against (issue 19), World ÷ floor, and
   * World's machine CPU per call ÷ the floor's */
  floorId?: string;
  floorOverhead?: Comparison;
  floorCpuRatio?: number;
}

/** What a scenario runner needs. */
export interface RunContext {
  profile: Profile;
  rss: RssSampler;
  log: (line: string) => void;
  /**
   * Runs one step; a failure is recorded (the report's `failures`) and yields undefined, so one
   * broken scenario never loses the rest of the run. Absent: failures propagate.
   */
  guard?: <T>(label: string, step: () => Promise<T>) => Promise<T | undefined>;
}

/** Runs `step` under ctx.guard when there is one. */
async function guarded<T>(
  ctx: RunContext,
  label: string,
  step: () => Promise<T>,
): Promise<T | undefined> {
  return ctx.guard === undefined ? step() : ctx.guard(label, step);
}

function idOf(
  target: TargetKind,
  driver: DriverName,
  scenario: ScenarioKind,
  logEntries?: number,
): string {
  return `${target}/${driver}/${scenario}${logEntries === undefined ? '' : `@${logEntries}`}`;
}

async function drive(
  driver: DriverName,
  target: Target,
  creds: ClientCredential[],
  warmup: number,
  calls: number,
  onMeasure: () => void,
): Promise<DriverResult> {
  if (driver === 'mcp-client') return runMcpClients(target.mcpUrl, creds, warmup, calls, onMeasure);
  const load = {
    url: target.mcpUrl,
    method: 'POST' as const,
    connections: creds,
    body: TOOL_CALL_BODY,
    verify: isOkToolAnswer,
  };
  let warmed = 0;
  let warmupProblem: string | undefined;
  if (warmup > 0) {
    const w = await runHttpLoad({ ...load, amount: Math.max(warmup, creds.length) });
    warmed = w.completed;
    if (w.errors > 0) warmupProblem = `warm-up: ${w.errors} failed: ${w.firstError}`;
  }
  onMeasure();
  const measured = await runHttpLoad({ ...load, amount: calls });
  return { ...measured, warmup: warmed, firstError: measured.firstError ?? warmupProblem };
}

/**
 * Runs one tools/call scenario: credentials, warm-up, measured calls; on World also checks that
 * every call answered added exactly one log entry.
 */
export async function toolCallScenario(
  ctx: RunContext,
  target: Target,
  driver: DriverName,
  scenario: Exclude<ScenarioKind, 'log-read'>,
  options: {
    clients: number;
    sharedEpisode?: boolean;
    calls: number;
    warmup: number;
    creds?: ClientCredential[];
    tagEntries?: boolean;
  },
): Promise<ScenarioResult> {
  const creds =
    options.creds ??
    (await target.clients(options.clients, `${scenario}-${driver === 'http' ? 'h' : 'm'}`, {
      sharedEpisode: options.sharedEpisode,
    }));
  const before = await target.headIndex();
  ctx.log(
    `  ${idOf(target.kind, driver, scenario)}: ${options.clients} client(s), ${options.warmup} warm-up + ${options.calls} calls${before === null ? '' : `, log at ${before}`}`,
  );
  const watched = [...(await target.watched()), { name: 'harness', pid: process.pid }];
  let cpuBefore: CpuSnapshot = new Map();
  ctx.rss.window();
  const result = await drive(driver, target, creds, options.warmup, options.calls, () => {
    cpuBefore = cpuSnapshot(watched);
  });
  const cpuAfter = cpuSnapshot([...watched, ...(await target.watched())]);
  const cpuMsPerCall = cpuPerCall(cpuBefore, cpuAfter, result.completed);
  const rssPeakMb = ctx.rss.window();
  const after = await target.headIndex();
  const summary = summarize(result.latenciesMs, result.wallMs, result.errors);
  ctx.log(
    `    p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms, ${summary.callsPerSec.toFixed(0)} calls/s, ${summary.errors} errors; CPU ms/call ${formatCpu(cpuMsPerCall)}`,
  );
  return {
    id: idOf(
      target.kind,
      driver,
      scenario,
      options.tagEntries && before !== null ? before : undefined,
    ),
    target: target.kind,
    driver,
    scenario,
    clients: options.clients,
    episodes: target.kind === 'baseline' ? 0 : options.sharedEpisode ? 1 : options.clients,
    ...(before !== null && { logEntries: before }),
    summary,
    ...(result.firstError !== undefined && { firstError: result.firstError }),
    rssPeakMb,
    cpuMsPerCall,
    loadavg1: loadavg()[0]!,
    ...(before !== null &&
      after !== null && {
        committed: { calls: result.warmup + result.completed, entries: after - before },
      }),
  };
}

/** The concurrency and contention scenarios of one driver (issue 7); `skipC1` when c1 runs apart. */
export async function loadScenarios(
  ctx: RunContext,
  target: Target,
  driver: DriverName,
  options: { skipC1?: boolean } = {},
): Promise<ScenarioResult[]> {
  const p = ctx.profile;
  const out: ScenarioResult[] = [];
  const push = (r: ScenarioResult | undefined) => {
    if (r !== undefined) out.push(r);
  };
  const run = (kind: ScenarioKind, step: () => Promise<ScenarioResult>) =>
    guarded(ctx, `${target.kind}/${driver}/${kind}`, step).then(push);
  if (!options.skipC1)
    await run('c1', () =>
      toolCallScenario(ctx, target, driver, 'c1', {
        clients: 1,
        calls: p.callsC1,
        warmup: p.warmup,
      }),
    );
  await run('c8', () =>
    toolCallScenario(ctx, target, driver, 'c8', {
      clients: 8,
      calls: p.callsConcurrent,
      warmup: p.warmup,
    }),
  );
  await run('c32', () =>
    toolCallScenario(ctx, target, driver, 'c32', {
      clients: 32,
      calls: p.callsConcurrent,
      warmup: p.warmup,
    }),
  );
  if (target.kind !== 'baseline') {
    await run('contention', () =>
      toolCallScenario(ctx, target, driver, 'contention', {
        clients: CONTENTION_CLIENTS,
        sharedEpisode: true,
        calls: p.callsConcurrent,
        warmup: p.warmup,
      }),
    );
  }
  return out;
}

/**
 * GET /v1/log?from=…&limit=500 at concurrency 1, `from` cycling over pages spread across the
 * whole log (issue 7).
 */
export async function logReadScenario(
  ctx: RunContext,
  target: Target,
  cred: ClientCredential,
): Promise<ScenarioResult> {
  const head = (await target.headIndex())!;
  const SPREAD = 10;
  const last = Math.max(0, head - LOG_PAGE + 1);
  const paths = Array.from(
    { length: SPREAD },
    (_, i) => `/v1/log?from=${Math.round((last * i) / (SPREAD - 1))}&limit=${LOG_PAGE}`,
  );
  const expected = (from: number) => Math.min(LOG_PAGE, head - from + 1);
  const verify = (body: string) => {
    try {
      const parsed = JSON.parse(body) as { items?: Array<{ header: { entryIndex: number } }> };
      const items = parsed.items ?? [];
      return items.length > 0 && items.length === expected(items[0]!.header.entryIndex);
    } catch {
      return false;
    }
  };
  ctx.log(
    `  ${target.kind}/http/log-read@${head}: ${ctx.profile.logReads} reads of ${LOG_PAGE} entries`,
  );
  const load = {
    url: `${target.baseUrl}/v1/log`,
    method: 'GET' as const,
    connections: [cred],
    paths,
    verify,
  };
  const warmup = Math.min(ctx.profile.warmup, ctx.profile.logReads);
  // amount 0 would mean "no limit" to autocannon (a 10 s run): no warm-up then.
  if (warmup > 0) await runHttpLoad({ ...load, amount: warmup });
  const watched = [...(await target.watched()), { name: 'harness', pid: process.pid }];
  ctx.rss.window();
  const cpuBefore = cpuSnapshot(watched);
  const result = await runHttpLoad({ ...load, amount: ctx.profile.logReads });
  const cpuMsPerCall = cpuPerCall(
    cpuBefore,
    cpuSnapshot([...watched, ...(await target.watched())]),
    result.completed,
  );
  const summary = summarize(result.latenciesMs, result.wallMs, result.errors);
  ctx.log(
    `    p50 ${summary.p50.toFixed(2)} ms, p99 ${summary.p99.toFixed(2)} ms, ${summary.errors} errors`,
  );
  return {
    id: `${target.kind}/http/log-read@${head}`,
    target: target.kind,
    driver: 'http',
    scenario: 'log-read',
    clients: 1,
    episodes: 0,
    logEntries: head,
    summary,
    ...(result.firstError !== undefined && { firstError: result.firstError }),
    rssPeakMb: ctx.rss.window(),
    cpuMsPerCall,
    loadavg1: loadavg()[0]!,
  };
}

/**
 * Call 10 vs call 10,000 of one episode (issue 7), raw HTTP at concurrency 1: calls 1…9 warm
 * up, calls 10…10+W−1 are measured, the broker is pumped (direct broker.effect.execute, see
 * world/pump.ts) up to call 9,999, then calls 10,000…10,000+W−1 are measured.
 */
export async function episodeGrowthScenarios(
  ctx: RunContext,
  target: DistributedTarget,
): Promise<ScenarioResult[]> {
  const p = ctx.profile;
  const [cred] = await target.clients(1, 'episode');
  const first = await toolCallScenario(ctx, target, 'http', 'episode-early', {
    clients: 1,
    calls: p.episodeWindow,
    warmup: p.episodeEarly - 1,
    creds: [cred!],
  });
  const done = p.episodeEarly - 1 + p.episodeWindow;
  const pump = p.episodeLate - 1 - done;
  ctx.log(
    `  pumping ${pump} effects into episode ${cred!.episodeId} through broker.effect.execute`,
  );
  const t0 = Date.now();
  await pumpEpisode(target.rpc, cred!.episodeId!, cred!.credentialId!, pump);
  ctx.log(`    ${pump} effects in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const late = await toolCallScenario(ctx, target, 'http', 'episode-late', {
    clients: 1,
    calls: p.episodeWindow,
    warmup: 0,
    creds: [cred!],
  });
  return [first, late];
}

/** Fills the log to `entries` through ledger.commit, logging progress. */
export async function growLog(
  ctx: RunContext,
  target: DistributedTarget,
  entries: number,
): Promise<void> {
  const head = (await target.headIndex())!;
  if (head >= entries) return;
  ctx.log(`  filling the log from ${head} to ${entries} entries through ledger.commit`);
  const t0 = Date.now();
  const n = await fillLog(target.rpc, head, entries, (h) => ctx.log(`    … ${h} entries`));
  ctx.log(
    `    ${n} commits in ${((Date.now() - t0) / 1000).toFixed(1)} s (${((n * 1000) / (Date.now() - t0)).toFixed(0)}/s)`,
  );
}

/** `gateway 1.20, planner 0.80, …` */
function formatCpu(cpu: Record<string, number>): string {
  return Object.entries(cpu)
    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
    .join(', ');
}
