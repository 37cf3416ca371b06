/**
 * `pnpm bench --profile [--quick] [--keep]`: where one call's time goes in distributed mode,
 * with nothing added to the services (issue 7), and where it goes beyond the floor (issue 19).
 * The floor's four processes run first, then World's four services, each under `--cpu-prof`; a
 * passive NATS tap counts requests per call and times every hop; pg_stat_activity is sampled
 * for the statements the database is busy with; the log-range statement is EXPLAIN ANALYZEd.
 * Phases: concurrency 1 and 32 clients over 32 episodes on both systems, then log reads on
 * World. Prints the findings, among them the ranking of World's CPU per call beyond the
 * floor's per process, per service and area, and per service and function
 * (profile/beyond-floor.ts), and writes bench/results/<date>-profile.json. `--keep` leaves
 * World's database (and prints its URL) for further EXPLAIN ANALYZE by hand.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOG_PAGE, type Profile } from './config.js';
import { isOkToolAnswer, runHttpLoad, TOOL_CALL_BODY } from './drivers/http-load.js';
import { writeFixture } from './fixture.js';
import { beyondFloor, formatBeyondFloor, type BeyondFloor } from './profile/beyond-floor.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './profile/cpuprofile.js';
import { PgSampler } from './profile/pg-sampler.js';
import { phase, printPhase, type PhaseReport } from './profile/phase.js';
import { NatsTap } from './profile/tap.js';
import { RssSampler } from './proc.js';
import { growLog } from './scenarios.js';
import { startDistributedTarget } from './targets/distributed.js';
import { adminUrl } from './targets/stage.js';
import { startFloorTarget } from './targets/floor.js';
import type { ClientCredential, Target } from './targets/target.js';

const RESULTS_DIR =
  process.env.WORLD_BENCH_RESULTS_DIR ?? fileURLToPath(new URL('../results/', import.meta.url));

/** What the profiling pass needs of a system: its MCP endpoint, NATS and database. */
type Profiled = Target & { natsUrl: string; prefix: string; databaseUrl: string };

const C1 = 'concurrency 1 (http)';
const C32 = '32 clients over 32 episodes (http)';

/** The two tools/call phases (c1, then 32 clients over 32 episodes), each after its warm-up. */
async function callPhases(
  target: Profiled,
  tap: NatsTap,
  sampler: PgSampler,
  profile: Profile,
  log: (line: string) => void,
): Promise<{ phases: PhaseReport[]; one: ClientCredential[] }> {
  const call = (creds: ClientCredential[], amount: number) =>
    runHttpLoad({
      url: target.mcpUrl,
      method: 'POST',
      connections: creds,
      body: TOOL_CALL_BODY,
      verify: isOkToolAnswer,
      amount,
    });
  const phases: PhaseReport[] = [];
  const one = await target.clients(1, 'prof-c1');
  if (profile.warmup > 0) await call(one, profile.warmup);
  phases.push(await phase(C1, target, tap, sampler, () => call(one, profile.callsC1), log));
  const many = await target.clients(32, 'prof-c32');
  await call(many, Math.max(profile.warmup, many.length));
  phases.push(
    await phase(C32, target, tap, sampler, () => call(many, profile.callsConcurrent), log),
  );
  return { phases, one };
}

/**
 * Each written .cpuprofile of `dir`, by process name (from its pid), summarized over each
 * named set of windows. @param top rows kept per list
 */
async function readProfiles(
  dir: string,
  pids: Record<number, string>,
  windows: Record<string, Array<[number, number]>>,
  top: number,
): Promise<Record<string, Record<string, ProfileSummary>>> {
  const out: Record<string, Record<string, ProfileSummary>> = {};
  for (const file of await readdir(dir)) {
    const pid = Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(file)?.[1]);
    const cpu = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    out[pids[pid] ?? file] = Object.fromEntries(
      Object.entries(windows).map(([label, w]) => [label, summarizeProfile(cpu, top, w)]),
    );
  }
  return out;
}

/** A profiled phase as beyond-floor.ts reads it: the harness left out of the CPU. */
function profiled(p: PhaseReport, profiles: Record<string, Record<string, ProfileSummary>>) {
  return {
    calls: p.calls,
    cpuMsPerCall: Object.fromEntries(
      Object.entries(p.cpuMsPerCall).filter(([name]) => name !== 'harness'),
    ),
    profiles: Object.fromEntries(
      Object.entries(profiles).flatMap(([name, by]) =>
        by[p.name] === undefined ? [] : [[name, by[p.name]!]],
      ),
    ),
  };
}

/**
 * WORLD_BENCH_PROFILE_DIR keeps the raw .cpuprofile files (open them in Chrome DevTools), named
 * `<prefix><process>-<file>`.
 */
async function keepRawProfiles(
  dir: string,
  pids: Record<number, string>,
  prefix: string,
  log?: (line: string) => void,
): Promise<void> {
  const keepDir = process.env.WORLD_BENCH_PROFILE_DIR;
  if (keepDir === undefined) return;
  await mkdir(keepDir, { recursive: true });
  for (const file of await readdir(dir)) {
    const pid = Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(file)?.[1]);
    await copyFile(join(dir, file), join(keepDir, `${prefix}${pids[pid] ?? 'process'}-${file}`));
  }
  log?.(`raw profiles copied to ${keepDir}`);
}

/** Rows kept of every list when the profiles are compared (the printout shows fewer). */
const ALL_ROWS = 100_000;

/** The floor's part of the pass: both tools/call phases under --cpu-prof, then its profiles. */
async function profileFloor(
  root: string,
  fixture: string,
  runTag: string,
  profile: Profile,
  log: (line: string) => void,
): Promise<{ phases: PhaseReport[]; profiles: Record<string, Record<string, ProfileSummary>> }> {
  const profDir = join(root, 'cpuprof-floor');
  await mkdir(profDir, { recursive: true });
  const target = await startFloorTarget(root, fixture, `${runTag}f`, [
    '--cpu-prof',
    `--cpu-prof-dir=${profDir}`,
  ]);
  const pids = Object.fromEntries(target.processes.map((p) => [p.pid, p.name]));
  let phases: PhaseReport[];
  try {
    const tap = await NatsTap.open(target.natsUrl, target.prefix);
    const sampler = await PgSampler.open(adminUrl(), target.databaseUrl);
    try {
      ({ phases } = await callPhases(target, tap, sampler, profile, log));
    } finally {
      await tap.close();
      await sampler.close();
    }
  } finally {
    await target.close();
  }
  const windows = Object.fromEntries(phases.map((p) => [p.name, [p.windowUs]]));
  await keepRawProfiles(profDir, pids, 'floor-');
  return { phases, profiles: await readProfiles(profDir, pids, windows, ALL_ROWS) };
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
    `World bench --profile (${profile.name}): the floor, then World's services, under --cpu-prof; NATS tap, pg_stat_activity sampling`,
  );
  log('floor:');
  const floor = await profileFloor(root, fixture, runTag, profile, log);
  log('World distributed:');
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
    const calls = await callPhases(target, tap, sampler, profile, log);
    phases.push(...calls.phases);
    const one = calls.one;
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

  // Per service: the tools/call phases together, the log reads, and each tools/call phase alone
  // (for the comparison with the floor), each from its own windows.
  const callPhasesOf = (ps: PhaseReport[]) => ps.filter((p) => !p.name.startsWith('GET'));
  const windows = (ps: PhaseReport[], reads = false) => ({
    'tools/call phases': callPhasesOf(ps).map((p) => p.windowUs),
    ...(reads && {
      'log-read phase': ps.filter((p) => p.name.startsWith('GET')).map((p) => p.windowUs),
    }),
    ...Object.fromEntries(callPhasesOf(ps).map((p) => [p.name, [p.windowUs]])),
  });
  const profiles = await readProfiles(profDir, pids, windows(phases, true), ALL_ROWS);
  const floorProfiles = floor.profiles;
  const beyond: BeyondFloor[] = callPhasesOf(phases).flatMap((p) => {
    const f = floor.phases.find((x) => x.name === p.name);
    return f === undefined
      ? []
      : [beyondFloor(p.name, profiled(p, profiles), profiled(f, floorProfiles))];
  });
  const shown = (
    by: Record<string, Record<string, ProfileSummary>>,
    labels: string[],
    top: number,
  ) =>
    Object.fromEntries(
      Object.entries(by).map(([name, s]) => [
        name,
        Object.fromEntries(
          labels.flatMap((l) =>
            s[l] === undefined
              ? []
              : [
                  [
                    l,
                    {
                      ...s[l]!,
                      areas: s[l]!.areas.slice(0, top),
                      functions: s[l]!.functions.slice(0, top),
                      callers: s[l]!.callers.slice(0, top),
                    },
                  ],
                ],
          ),
        ),
      ]),
    );
  const worldShown = shown(profiles, ['tools/call phases', 'log-read phase'], 20);
  const floorShown = shown(floorProfiles, [C1, C32], 20);
  for (const p of floor.phases) printPhase({ ...p, name: `floor, ${p.name}` }, log);
  for (const p of phases) printPhase(p, log);
  log('\nEXPLAIN ANALYZE of the log range (ledger.log.range):');
  log(explains['ledger.log.range']!);
  for (const [system, by] of [
    ['World', worldShown],
    ['floor', floorShown],
  ] as const) {
    for (const [name, labels] of Object.entries(by)) {
      for (const [label, s] of Object.entries(labels)) {
        log(
          `\n== CPU profile of ${system} ${name}, ${label}: ${s.busyMs.toFixed(0)} ms busy of ${s.totalMs.toFixed(0)} ms`,
        );
        log(
          `by area:     ${s.areas.map((a) => `${a.name} ${(a.share * 100).toFixed(1)}%`).join(', ')}`,
        );
        log('by function (self time):');
        for (const f of s.functions)
          log(`  ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`);
        log(
          'by caller (native and Node-internal time charged to the library or World code that caused it):',
        );
        for (const f of s.callers) log(`  ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`);
      }
    }
  }
  for (const b of beyond) log(['', ...formatBeyondFloor(b)].join('\n'));
  await mkdir(RESULTS_DIR, { recursive: true });
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const file = join(
    RESULTS_DIR,
    `${date.replace(/:/g, '-')}-profile${profile.name === 'quick' ? '-quick' : ''}.json`,
  );
  await writeFile(
    file,
    `${JSON.stringify(
      {
        date,
        mode: profile.name,
        phases,
        explains,
        cpuProfiles: worldShown,
        floor: { phases: floor.phases, cpuProfiles: floorShown },
        beyondFloor: beyond,
      },
      null,
      2,
    )}\n`,
  );
  log(`\nwrote ${file}`);
  await keepRawProfiles(profDir, pids, '', log);
  await rm(root, { recursive: true, force: true });
}
