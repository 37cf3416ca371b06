/**
 * `pnpm bench [--quick] [--only baseline,floor,floor-single,distributed,embedded]`: starts the
 * baseline, the floor (issue 19), the embedded floor (issue 13), World distributed and World
 * embedded one after another on this machine, runs
 * every scenario of issue 7 against each, prints the table and the target checks, and writes
 * bench/results/<date>.json (and .md). `--profile` runs the profiling pass instead (profile.ts).
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FULL, QUICK, type Profile } from './config.js';
import { DRIVERS } from './drivers/driver.js';
import { writeFixture } from './fixture.js';
import { RssSampler } from './proc.js';
import {
  attachBaselines,
  checkTargets,
  formatMarkdown,
  formatTable,
  type RunReport,
} from './report.js';
import {
  episodeGrowthScenarios,
  growLog,
  loadScenarios,
  logReadScenario,
  toolCallScenario,
  type RunContext,
  type ScenarioResult,
} from './scenarios.js';
import { startBaselineTarget } from './targets/baseline.js';
import { startDistributedTarget } from './targets/distributed.js';
import { startFloorTarget } from './targets/floor.js';
import { startFloorSingleTarget } from './targets/floor-single.js';
import { attachFloor } from './report-floor.js';
import { startEmbeddedTarget } from './targets/embedded.js';
import type { Target, TargetKind } from './targets/target.js';
import { runProfile } from './profile.js';
import { runWorkbenchBench } from './workbench.js';

/** Where results go: bench/results, or WORLD_BENCH_RESULTS_DIR (the smoke test writes to a temporary directory). */
const RESULTS_DIR =
  process.env.WORLD_BENCH_RESULTS_DIR ?? fileURLToPath(new URL('../results/', import.meta.url));
const TARGET_KINDS: TargetKind[] = ['baseline', 'floor', 'floor-single', 'distributed', 'embedded'];

/** Command-line options. */
interface BenchArgs {
  profile: Profile;
  only: TargetKind[];
  profiling: boolean;
  /** --profile --keep: leave the profiled database for EXPLAIN by hand */
  keep: boolean;
  /** --workbench: the workbench page timings instead (workbench.ts) */
  workbench: boolean;
}

/**
 * Parses the command line.
 * @throws Error naming an unknown flag or target
 */
function parseArgs(argv: string[]): BenchArgs {
  let profile = FULL;
  let only = TARGET_KINDS;
  let profiling = false;
  let keep = false;
  let workbench = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') profile = QUICK;
    else if (arg === '--profile') profiling = true;
    else if (arg === '--keep') keep = true;
    else if (arg === '--workbench') workbench = true;
    else if (arg === '--only' || arg.startsWith('--only=')) {
      const value = arg.includes('=') ? arg.slice('--only='.length) : argv[++i];
      only = (value ?? '').split(',').map((k) => {
        if (!TARGET_KINDS.includes(k as TargetKind))
          throw new Error(`--only: "${k}" is not one of ${TARGET_KINDS.join(', ')}`);
        return k as TargetKind;
      });
    } else if (arg !== '--')
      throw new Error(
        `unknown argument "${arg}" (use --quick, --only <targets>, --profile [--keep], --workbench)`,
      );
  }
  return { profile, only, profiling, keep, workbench };
}

/** The commit of the tree the run measured, and whether it had uncommitted changes. */
function gitState(): { head: string; dirty: boolean } | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
      }).trim() !== '';
    return { head, dirty };
  } catch {
    return undefined;
  }
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function withTarget<T>(
  start: () => Promise<Target>,
  ctx: RunContext,
  hwm: RunReport['rssHighWaterMb'],
  work: (t: Target) => Promise<T>,
): Promise<T> {
  const t0 = Date.now();
  const target = await start();
  log(
    `${target.kind}: started in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${target.baseUrl} (pids ${target.processes.map((p) => `${p.name}=${p.pid}`).join(', ')})`,
  );
  ctx.rss.track(target.processes);
  try {
    return await work(target);
  } finally {
    ctx.rss.window();
    hwm[target.kind] = Object.fromEntries(
      Object.entries(ctx.rss.highWater()).filter(([name]) =>
        target.processes.some((p) => p.name === name),
      ),
    );
    await target.close();
  }
}

async function runBench(args: BenchArgs): Promise<RunReport> {
  const started = Date.now();
  const loadavgStart = loadavg();
  const git = gitState();
  const root = await mkdtemp(join(tmpdir(), 'world-bench-'));
  // Under root, embedded World's PostgreSQL runs as world-postgres, which must traverse it.
  await chmod(root, 0o711);
  const runTag = `b${Date.now().toString(36)}`;
  const fixture = await writeFixture(root);
  const rss = new RssSampler([{ name: 'harness', pid: process.pid }]);
  rss.start();
  const failures: string[] = [];
  const ctx: RunContext = {
    profile: args.profile,
    rss,
    log,
    async guard(label, step) {
      try {
        return await step();
      } catch (err) {
        const message = `${label}: ${(err as Error)?.message ?? String(err)}`;
        failures.push(message);
        log(`  FAILED ${message}`);
        return undefined;
      }
    },
  };
  const scenarios: ScenarioResult[] = [];
  const add = (r: ScenarioResult | ScenarioResult[] | undefined) => {
    if (r !== undefined) scenarios.push(...(Array.isArray(r) ? r : [r]));
  };
  const g = ctx.guard!;
  const hwm: RunReport['rssHighWaterMb'] = {};
  /** The load scenarios of both drivers against one target. */
  const loadBoth = async (t: Target, options?: { skipC1?: boolean }) => {
    for (const driver of DRIVERS) add(await loadScenarios(ctx, t, driver, options));
  };
  /** A target whose whole run is the load scenarios of both drivers (baseline, floor). */
  const loadOnly = (kind: TargetKind, start: () => Promise<Target>) =>
    g(kind, () => withTarget(start, ctx, hwm, (t) => loadBoth(t)));
  const p = args.profile;
  try {
    if (args.only.includes('baseline'))
      await loadOnly('baseline', () => startBaselineTarget(fixture));
    if (args.only.includes('floor'))
      await loadOnly('floor', () => startFloorTarget(root, fixture, runTag));
    if (args.only.includes('floor-single'))
      await loadOnly('floor-single', () => startFloorSingleTarget(root, fixture));
    if (args.only.includes('distributed')) {
      await g('distributed', () =>
        withTarget(
          () => startDistributedTarget(root, fixture, runTag),
          ctx,
          hwm,
          async (target) => {
            const t = target as Awaited<ReturnType<typeof startDistributedTarget>>;
            // The http c1 run at a log size: its entries are tagged, so growth is read off them.
            const httpC1 = () =>
              toolCallScenario(ctx, t, 'http', 'c1', {
                clients: 1,
                calls: p.callsC1,
                warmup: p.warmup,
                tagEntries: true,
              });
            const [reader] = await t.clients(1, 'reader');
            await growLog(ctx, t, p.growthSmall);
            add(await g('log-read', () => logReadScenario(ctx, t, reader!)));
            // The first c1 run starts at the small log: it is also the first growth point.
            add(await g('http c1', httpC1));
            add(
              await g('mcp-client c1', () =>
                toolCallScenario(ctx, t, 'mcp-client', 'c1', {
                  clients: 1,
                  calls: p.callsC1,
                  warmup: p.warmup,
                }),
              ),
            );
            await loadBoth(t, { skipC1: true });
            add(await g('episode growth', () => episodeGrowthScenarios(ctx, t)));
            await growLog(ctx, t, p.growthLarge);
            add(await g('http c1', httpC1));
            add(await g('log-read', () => logReadScenario(ctx, t, reader!)));
          },
        ),
      );
    }
    if (args.only.includes('embedded')) {
      await g('embedded', () =>
        withTarget(
          () => startEmbeddedTarget(root, fixture, runTag),
          ctx,
          hwm,
          async (t) => {
            await loadBoth(t);
            const [reader] = await t.clients(1, 'reader');
            add(await g('log-read', () => logReadScenario(ctx, t, reader!)));
          },
        ),
      );
    }
  } finally {
    rss.stop();
    await rm(root, { recursive: true, force: true });
  }
  attachBaselines(scenarios);
  attachFloor(scenarios);
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    date,
    mode: p.name,
    profile: p,
    git,
    machine: {
      cpus: cpus().length,
      node: process.versions.node,
      loadavgStart,
      loadavgEnd: loadavg(),
    },
    durationS: (Date.now() - started) / 1000,
    scenarios,
    rssHighWaterMb: hwm,
    targets: checkTargets(scenarios, p.growthLarge),
    failures,
    notes: [
      'latencies in ms; Δ = World − baseline and × = World / baseline at the same percentile, same driver and concurrency (contention is compared with baseline c8, the episode windows with baseline c1)',
      '× floor = World / floor at the same percentile, driver and scenario (distributed against the floor of issue 19, embedded against the embedded floor floor-single of issue 13 when it ran; the episode windows against floor c1); machine CPU = every process of the system (services, nats-server, its PostgreSQL backends), harness excluded',
      'http = autocannon posting raw JSON-RPC tools/call (2025-11-25 headers), one session per connection; mcp-client = @modelcontextprotocol/client 2.4.0, one Client per agent',
      'the log is grown through ledger.commit (7 objects per entry, shaped like a real call); the episode is driven to call 10,000 through direct broker.effect.execute',
    ],
  };
}

/**
 * Runs the bench with the process's arguments, prints the table and the checks, writes the
 * results. @throws on a bad argument or a failed start (the caller exits 1)
 * @public run.mjs imports it from the build (bench/dist/main.js), which knip does not map to src
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const args = parseArgs(argv);
  if (args.profiling) {
    await runProfile(args.profile, log, args.keep);
    return;
  }
  if (args.workbench) {
    await runWorkbenchBench(args.profile === QUICK, RESULTS_DIR, log);
    return;
  }
  log(`World bench (${args.profile.name}): ${args.only.join(', ')}`);
  const report = await runBench(args);
  log('');
  log(formatTable(report));
  await mkdir(RESULTS_DIR, { recursive: true });
  const stem = join(
    RESULTS_DIR,
    `${report.date.replace(/:/g, '-')}${report.mode === 'quick' ? '-quick' : ''}`,
  );
  await writeFile(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(`${stem}.md`, `${formatMarkdown(report)}\n`);
  log(`\nwrote ${stem}.json and ${stem}.md`);
}
