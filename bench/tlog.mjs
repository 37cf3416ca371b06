// The transparency log's costs (issue 12), part of `pnpm bench` (run.mjs runs it after the main
// harness; `pnpm bench:tlog` alone): against a real ledger on PostgreSQL + NATS,
//   1. c1: p50/p90 of one lone `ledger.commit` at a time (the fast path, now with its tree rows);
//   2. proofs at 100,000 entries: p50/p90 of `ledger.tlog.inclusion` and `ledger.tlog.consistency`
//      over NATS, on a log whose tree the ledger built at start (bootstrapTree).
// LEDGER_DIST=<dir> runs the same c1 measurement against another build of the ledger (e.g. main's,
// for the before/after comparison); WORLD_BENCH_NATS_URL (default: a nats-server started here with
// infra/nats/nats.conf, as the main harness does) and WORLD_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startScratchNats } from '../scripts/scratch-nats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ledgerDist = process.env.LEDGER_DIST ?? join(here, '../apps/ledger/dist');
let natsUrl = process.env.WORLD_BENCH_NATS_URL;
const adminUrl =
  process.env.WORLD_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const COMMITS = Number(process.env.WORLD_BENCH_TLOG_COMMITS ?? 1000);
const PROOFS = Number(process.env.WORLD_BENCH_TLOG_PROOFS ?? 2000);
const LARGE = 100_000;

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => x.toFixed(3);

async function withDatabase(work) {
  const name = `bench_tlog_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function boot(url, prefix) {
  const { startLedger } = await import(pathToFileURL(join(ledgerDist, 'index.js')).href);
  const runtime = await import(
    pathToFileURL(join(ledgerDist, '../node_modules/@world/runtime/dist/index.js')).href
  );
  const database = await runtime.openPostgres(url);
  const transport = { kind: 'nats', url: natsUrl, prefix };
  const ledger = await startLedger({ transport, database, replica: `bench-${prefix}` });
  const client = await runtime.connectRpc(transport, `bench-client-${prefix}`);
  return {
    client,
    database,
    async close() {
      await client.close();
      await ledger.close();
      await database.close();
    },
  };
}

async function toolCall(i) {
  const canonical = await import(
    pathToFileURL(join(ledgerDist, '../node_modules/@world/canonical/dist/index.js')).href
  );
  const input = canonical.makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', { i });
  const output = canonical.makeJsonObject('world/invocation-output/v1', 'coordinator:mcp', {
    ok: i,
  });
  const invocationId = `mcp:bench:${randomBytes(8).toString('hex')}`;
  const record = canonical.makeJsonObject('world/invocation-record/v1', 'coordinator:mcp', {
    invocationId,
    input: input.hash,
    output: output.hash,
  });
  return {
    invocationId,
    writtenBy: 'coordinator:mcp',
    semanticsEpoch: 1,
    transitionFn: canonical.refOf('bench transition'),
    interpreter: canonical.refOf('bench interpreter'),
    transitionRef: record.hash,
    stateRoot: output.hash,
    objects: [input, output, record].map(canonical.toWireObject),
  };
}

async function commitLatency() {
  return withDatabase(async (url) => {
    const s = await boot(url, `bench-tlog-c1-${randomBytes(3).toString('hex')}`);
    try {
      const times = [];
      for (let i = 0; i < COMMITS + 100; i++) {
        const request = await toolCall(i);
        const t0 = process.hrtime.bigint();
        await s.client.request('ledger.commit', request, { timeoutMs: 10_000 });
        const dt = Number(process.hrtime.bigint() - t0) / 1e6;
        if (i >= 100) times.push(dt);
      }
      return { p50: quantile(times, 0.5), p90: quantile(times, 0.9), n: times.length };
    } finally {
      await s.close();
    }
  });
}

async function proofLatency() {
  return withDatabase(async (url) => {
    // A first start migrates and writes the genesis; then the log gets 99,999 synthetic entries
    // (proofs read tree rows only) and its tree is dropped, so the next start builds it.
    let s = await boot(url, `bench-tlog-p0-${randomBytes(3).toString('hex')}`);
    await s.close();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const ref = (expr) => `'sha256:' || encode(sha256(convert_to(${expr}, 'UTF8')), 'hex')`;
    await db.query(`INSERT INTO ledger.log_entries (entry_index, entry_hash, semantics_epoch,
        transition_fn, interpreter, prev_entry_hash, written_by, transition_ref)
      SELECT i, ${ref("'e' || i")}, 1, ${ref("'f'")}, ${ref("'i'")}, ${ref("'e' || (i - 1)")}, 'bench', ${ref("'t' || i")}
        FROM generate_series(1, ${LARGE - 1}) AS i`);
    await db.query(
      `UPDATE ledger.heads SET entry_index = ${LARGE - 1}, entry_hash = ${ref(`'e${LARGE - 1}'`)}, tree_border = NULL`,
    );
    await db.query('DELETE FROM ledger.tree_nodes');
    await db.query('DELETE FROM ledger.checkpoints');
    await db.end();
    const t0 = Date.now();
    s = await boot(url, `bench-tlog-p1-${randomBytes(3).toString('hex')}`);
    const buildMs = Date.now() - t0;
    try {
      const inclusion = [];
      const consistency = [];
      for (let i = 0; i < PROOFS; i++) {
        const index = Math.floor(Math.random() * LARGE);
        let t = process.hrtime.bigint();
        await s.client.request(
          'ledger.tlog.inclusion',
          { index, size: LARGE },
          { timeoutMs: 10_000 },
        );
        inclusion.push(Number(process.hrtime.bigint() - t) / 1e6);
        const from = 1 + Math.floor(Math.random() * (LARGE - 1));
        t = process.hrtime.bigint();
        await s.client.request(
          'ledger.tlog.consistency',
          { from, to: LARGE },
          { timeoutMs: 10_000 },
        );
        consistency.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      return {
        buildMs,
        inclusion: { p50: quantile(inclusion, 0.5), p90: quantile(inclusion, 0.9) },
        consistency: { p50: quantile(consistency, 0.5), p90: quantile(consistency, 0.9) },
      };
    } finally {
      await s.close();
    }
  });
}

/** Starts nats-server with the deployment's configuration on a free port; returns its stop. */
async function startNats() {
  const nats = await startScratchNats('nats-server', 'world-bench-tlog-nats-');
  natsUrl = nats.url;
  return () => nats.stop();
}

/** Runs both measurements and prints one report (ms). */
export async function runTlogBench({ proofs = true } = {}) {
  const stopNats = natsUrl === undefined ? await startNats() : () => undefined;
  try {
    await measure(proofs);
  } finally {
    stopNats();
  }
}

async function measure(proofs) {
  const { loadavg } = await import('node:os');
  const out = (line) => process.stdout.write(`${line}\n`);
  out(
    `tlog bench (ledger ${ledgerDist}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
  );
  const c1 = await commitLatency();
  out(`  ledger.commit c1 over NATS: p50 ${ms(c1.p50)} ms, p90 ${ms(c1.p90)} ms (${c1.n} commits)`);
  if (proofs) {
    const p = await proofLatency();
    out(`  tree of ${LARGE} entries built at start in ${p.buildMs} ms`);
    out(
      `  inclusion proof at ${LARGE}: p50 ${ms(p.inclusion.p50)} ms, p90 ${ms(p.inclusion.p90)} ms (${PROOFS})`,
    );
    out(
      `  consistency proof to ${LARGE}: p50 ${ms(p.consistency.p50)} ms, p90 ${ms(p.consistency.p90)} ms (${PROOFS})`,
    );
  }
  out(
    `  load average after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  runTlogBench({ proofs: process.env.WORLD_BENCH_TLOG_PROOFS_OFF !== '1' }).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`tlog bench failed: ${err?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
