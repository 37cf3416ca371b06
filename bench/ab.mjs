#!/usr/bin/env node
// A/B of two builds of distributed World on one loaded box (bench/README.md "Tree update cost
// (A/B)" design, "World's per-call cuts (A/B)" results): A and B run side by side, each its own
// NATS, database and four services, started from each tree's own bench/dist (so each runs its own
// apps/*/dist). Then:
//   1. c1, call by call: one client each, calls sent A, B, B, A, A, B, … one at a time (fetch,
//      the raw JSON-RPC tools/call of `pnpm bench`), warm-up then measured pairs: p50/p99 of each;
//      CPU ms per call per process from /proc over the measured window; PostgreSQL transactions
//      per call (pg_stat_database.xact_commit of each run's database) and NATS requests/events
//      per call (a counting subscriber on each NATS, the bench's NatsTap).
//   2. c32, alternating windows: 32 clients on 32 episodes (autocannon), `--rounds` windows of
//      `--c32` calls each, A then B then B then A…: CPU ms per call per process of each window.
// Every answer is checked (structuredContent.ok) and every call must add one log entry.
//
//   node bench/ab.mjs --a /path/to/treeA --b /path/to/treeB [--pairs 1000] [--warmup 100]
//                     [--c32 600] [--rounds 4] [--mode distributed|embedded] [--out results/<name>.json]
// With `--mode embedded` each side is `world start` (its own PostgreSQL server, no NATS): the
// CPU per call counts the World process and its server's processes; there are no NATS counts and
// no transaction counts (the server is each side's own).
// Both trees must be built (`pnpm build`). Timings go to stdout and the --out JSON, never to tests.
import { mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .reduce(
      (acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc),
      [],
    ),
);
const TREES = { A: resolve(args.a), B: resolve(args.b) };
const PAIRS = Number(args.pairs ?? 1000);
const WARMUP = Number(args.warmup ?? 100);
const C32_CALLS = Number(args.c32 ?? 600);
const ROUNDS = Number(args.rounds ?? 4);
const MODE = args.mode ?? 'distributed';
if (MODE !== 'distributed' && MODE !== 'embedded') throw new Error(`--mode: ${MODE}`);
const log = (line) => process.stdout.write(`${line}\n`);

async function load(tree) {
  const dist = join(tree, 'bench', 'dist');
  return {
    distributed: await import(join(dist, 'targets', 'distributed.js')),
    embedded: await import(join(dist, 'targets', 'embedded.js')),
    fixture: await import(join(dist, 'fixture.js')),
    proc: await import(join(dist, 'proc.js')),
    http: await import(join(dist, 'drivers', 'http-load.js')),
    tap: await import(join(dist, 'profile', 'tap.js')),
  };
}

const pct = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function xactCommits(databaseUrl) {
  if (databaseUrl === undefined) return 0; // embedded: the side's own server, not counted
  const admin = new pg.Client({
    connectionString: args.admin ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  });
  await admin.connect();
  try {
    const db = new URL(databaseUrl).pathname.slice(1);
    const { rows } = await admin.query(
      'SELECT xact_commit::bigint AS c FROM pg_stat_database WHERE datname = $1',
      [db],
    );
    return Number(rows[0].c);
  } finally {
    await admin.end();
  }
}

function sumCpu(perCall) {
  const total = Object.values(perCall).reduce((a, b) => a + b, 0);
  return {
    ...Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, round(v)])),
    machine: round(total),
  };
}

const root = await mkdtemp(join(tmpdir(), 'world-ab-'));
await chmod(root, 0o711);
const sides = {};
try {
  for (const name of ['A', 'B']) {
    const m = await load(TREES[name]);
    const dir = join(root, name);
    const fixture = await m.fixture.writeFixture(dir);
    const target =
      MODE === 'embedded'
        ? await m.embedded.startEmbeddedTarget(dir, fixture, `ab-${name.toLowerCase()}`)
        : await m.distributed.startDistributedTarget(dir, fixture, `ab-${name.toLowerCase()}`);
    const [cred] = await target.clients(1, 'abc1');
    const tap =
      MODE === 'embedded'
        ? { start() {}, stop: async () => new Map(), close: async () => undefined }
        : await m.tap.NatsTap.open(target.natsUrl, target.prefix);
    sides[name] = { m, target, cred, tap, lat: [], errors: 0 };
    log(`${name}: ${TREES[name]} up at ${target.mcpUrl}`);
  }

  async function call(side) {
    const t0 = performance.now();
    const res = await fetch(side.target.mcpUrl, {
      method: 'POST',
      headers: { ...side.m.http.MCP_POST_HEADERS, ...side.cred.headers },
      body: side.m.http.TOOL_CALL_BODY,
    });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (!res.ok || !side.m.http.isOkToolAnswer(body)) side.errors++;
    return ms;
  }
  // A B B A A B B A …: each side goes first as often as second.
  const orderOf = (i) => (i % 2 === 0 ? ['A', 'B'] : ['B', 'A']);

  for (let i = 0; i < WARMUP; i++) for (const n of orderOf(i)) await call(sides[n]);
  const load0 = loadavg()[0];
  const at = {};
  for (const n of ['A', 'B']) {
    const s = sides[n];
    s.watched = [...(await s.target.watched())];
    s.head0 = await s.target.headIndex();
    s.x0 = await xactCommits(s.target.databaseUrl);
    s.tap.start();
    at[n] = s.m.proc.cpuSnapshot(s.watched);
  }
  for (let i = 0; i < PAIRS; i++)
    for (const n of orderOf(i)) sides[n].lat.push(await call(sides[n]));
  const c1 = { pairs: PAIRS, load: [round(load0), round(loadavg()[0])] };
  for (const n of ['A', 'B']) {
    const s = sides[n];
    const after = s.m.proc.cpuSnapshot([...s.watched, ...(await s.target.watched())]);
    const subjects = await s.tap.stop();
    const x1 = await xactCommits(s.target.databaseUrl);
    const head1 = await s.target.headIndex();
    const sorted = [...s.lat].sort((a, b) => a - b);
    let requests = 0;
    let events = 0;
    const perSubject = {};
    for (const [subject, st] of subjects) {
      requests += st.requests;
      events += st.events;
      perSubject[subject] = round((st.requests + st.events) / PAIRS, 3);
    }
    c1[n] = {
      p50: round(pct(sorted, 50)),
      p99: round(pct(sorted, 99)),
      errors: s.errors,
      committed: head1 - s.head0,
      cpuMsPerCall: sumCpu(s.m.proc.cpuPerCall(at[n], after, PAIRS)),
      pgTransactionsPerCall: round((x1 - s.x0) / PAIRS, 3),
      natsRequestsPerCall: round(requests / PAIRS, 3),
      natsEventsPerCall: round(events / PAIRS, 3),
      perSubject,
    };
    log(`c1 ${n}: ${JSON.stringify(c1[n])}`);
  }

  // c32 windows, alternating A B B A …
  const c32 = { calls: C32_CALLS, windows: [] };
  for (const n of ['A', 'B']) sides[n].creds32 = await sides[n].target.clients(32, 'abc32');
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of orderOf(r)) {
      const s = sides[n];
      const watched = [...(await s.target.watched())];
      const head0 = await s.target.headIndex();
      const x0 = await xactCommits(s.target.databaseUrl);
      const l0 = loadavg()[0];
      const before = s.m.proc.cpuSnapshot(watched);
      const result = await s.m.http.runHttpLoad({
        url: s.target.mcpUrl,
        method: 'POST',
        connections: s.creds32,
        amount: C32_CALLS,
        body: s.m.http.TOOL_CALL_BODY,
        verify: s.m.http.isOkToolAnswer,
      });
      const after = s.m.proc.cpuSnapshot([...watched, ...(await s.target.watched())]);
      const x1 = await xactCommits(s.target.databaseUrl);
      const head1 = await s.target.headIndex();
      const w = {
        side: n,
        round: r,
        load: [round(l0), round(loadavg()[0])],
        completed: result.completed,
        errors: result.errors,
        committed: head1 - head0,
        callsPerSec: round(result.completed / (result.wallMs / 1000), 1),
        cpuMsPerCall: sumCpu(s.m.proc.cpuPerCall(before, after, result.completed)),
        pgTransactionsPerCall: round((x1 - x0) / result.completed, 3),
      };
      c32.windows.push(w);
      log(`c32 ${n} round ${r}: ${JSON.stringify(w)}`);
    }
  }
  const out = { trees: TREES, c1, c32 };
  if (args.out !== undefined) await writeFile(args.out, `${JSON.stringify(out, null, 2)}\n`);
} finally {
  for (const n of ['A', 'B']) {
    await sides[n]?.tap.close?.().catch(() => undefined);
    await sides[n]?.target.close().catch(() => undefined);
  }
  await rm(root, { recursive: true, force: true });
}
