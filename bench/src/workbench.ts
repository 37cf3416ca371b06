/**
 * `pnpm bench --workbench [--quick]` (issue 15: "each page renders in ≤ 100 ms of server time at
 * 100,000 entries"): a distributed World; a few real tool calls of one episode (the oldest
 * entries) and one large write (LARGE_WRITE_LINES lines), then the log grown to WORKBENCH_ENTRIES through ledger.commit (fill.ts); then each
 * workbench page fetched WARMUP + RUNS times, one at a time, with the operator credential; the
 * first fetch's time is reported alone (nothing of the page read before). Server
 * time is the page's `Server-Timing: page;dur=` (the gateway's own measure from request to send);
 * the total as the client saw it over loopback is reported beside it. Load averages are recorded:
 * the box may be shared.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AMPLE_BUDGET, SESSION_TTL_SECONDS } from './config.js';
import { isOkToolAnswer, MCP_POST_HEADERS, TOOL_CALL_BODY } from './drivers/http-load.js';
import { writeFixture } from './fixture.js';
import { RssSampler } from './proc.js';
import { growLog } from './scenarios.js';
import { percentile } from './stats.js';
import { startDistributedTarget } from './targets/distributed.js';
import type { ClientCredential } from './targets/target.js';

/** The target: server time of one page, ms. */
const PAGE_TARGET_MS = 100;
const FULL_ENTRIES = 100_000;
const QUICK_ENTRIES = 1_000;
const WARMUP = 3;
const RUNS = 20;
/** Real tool calls of the old episode, before the fill. */
const OLD_CALLS = 3;
/** Lines of the large write whose entry page is timed (its change and raw JSON are cut on the page). */
const LARGE_WRITE_LINES = 20_000;

/** The large write's content: LARGE_WRITE_LINES lines `line <i>` (208,889 bytes, as the edges suite writes). */
function largeContent(): string {
  return Array.from({ length: LARGE_WRITE_LINES }, (_, i) => `line ${i}`).join('\n');
}

/** One page's timings, ms. */
interface PageTiming {
  page: string;
  path: string;
  status: number;
  /** the server time of the page's first request (cold: nothing of it read before) */
  serverFirst: number;
  serverP50: number;
  serverP95: number;
  serverMax: number;
  clientP50: number;
  meetsTarget: boolean;
}

/**
 * One real `ailang-write` of LARGE_WRITE_LINES lines by the old episode, through a session with
 * Workspace.Write minted for it (the clients' sessions only read).
 * @returns the write's entry index
 * @throws when the session cannot be minted or the call does not commit ok
 */
async function writeLarge(
  base: string,
  mcpUrl: string,
  operatorToken: string,
  old: ClientCredential,
): Promise<number> {
  const minted = await fetch(`${base}/v1/operator/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      episodeId: old.episodeId,
      grants: [`Workspace.Write=worktree:${AMPLE_BUDGET}`],
      ttlSeconds: SESSION_TTL_SECONDS,
    }),
  });
  if (minted.status !== 200) throw new Error(`write session: HTTP ${minted.status}`);
  const { token } = (await minted.json()) as { token: string };
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ailang-write', arguments: { path: 'large.txt', content: largeContent() } },
    }),
  });
  const body = await res.text();
  if (res.status !== 200 || !isOkToolAnswer(body))
    throw new Error(`large write: HTTP ${res.status} ${body.slice(0, 300)}`);
  const head = await fetch(`${base}/v1/head`, {
    headers: { authorization: `Bearer ${operatorToken}` },
  }).then((r) => r.text());
  const world = (await fetch(`${base}/v1/worlds/${head.trim()}`, {
    headers: { authorization: `Bearer ${operatorToken}` },
  }).then((r) => r.json())) as { revision: number };
  return world.revision;
}

async function timePage(
  base: string,
  token: string,
  page: string,
  path: string,
): Promise<PageTiming> {
  const server: number[] = [];
  const client: number[] = [];
  let status = 0;
  let serverFirst = 0;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    await res.text();
    const total = performance.now() - t0;
    status = res.status;
    const dur = /page;dur=([0-9.]+)/.exec(res.headers.get('server-timing') ?? '');
    if (dur === null) throw new Error(`${path}: no Server-Timing (status ${res.status})`);
    if (i === 0) serverFirst = Number(dur[1]);
    if (i >= WARMUP) {
      server.push(Number(dur[1]));
      client.push(total);
    }
  }
  server.sort((a, b) => a - b);
  client.sort((a, b) => a - b);
  const serverP95 = percentile(server, 0.95);
  return {
    page,
    path,
    status,
    serverFirst,
    serverP50: percentile(server, 0.5),
    serverP95,
    serverMax: server[server.length - 1]!,
    clientP50: percentile(client, 0.5),
    meetsTarget: status === 200 && serverP95 <= PAGE_TARGET_MS && serverFirst <= PAGE_TARGET_MS,
  };
}

/**
 * Runs the workbench pass and writes `<date>-workbench[-quick].json` and `.md` under `resultsDir`.
 * @throws when World does not start or a page answers without Server-Timing
 */
export async function runWorkbenchBench(
  quick: boolean,
  resultsDir: string,
  log: (line: string) => void,
): Promise<void> {
  const entries = quick ? QUICK_ENTRIES : FULL_ENTRIES;
  const loadavgStart = loadavg();
  const root = await mkdtemp(join(tmpdir(), 'world-bench-wb-'));
  const fixture = await writeFixture(root);
  const target = await startDistributedTarget(root, fixture, `w${Date.now().toString(36)}`);
  const rss = new RssSampler([]);
  const ctx = { profile: undefined as never, rss, log };
  const timings: PageTiming[] = [];
  try {
    const [old] = await target.clients(1, 'wbold');
    for (let i = 0; i < OLD_CALLS; i++) {
      const res = await fetch(target.mcpUrl, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, ...old!.headers },
        body: TOOL_CALL_BODY,
      });
      if (res.status !== 200) throw new Error(`old call ${i}: HTTP ${res.status}`);
      await res.text();
    }
    const firstOld = (await target.headIndex())! - OLD_CALLS + 1;
    const largeWrite = await writeLarge(target.baseUrl, target.mcpUrl, target.operatorToken, old!);
    await growLog(ctx, target, entries);
    const head = (await target.headIndex())!;
    log(`workbench pages at ${head + 1} entries (old episode ${old!.episodeId} at #${firstOld}…)`);
    const ep = encodeURIComponent(old!.episodeId!);
    const pages: Array<[string, string]> = [
      ['timeline, newest 50', '/workbench'],
      ['timeline, 100 rows', '/workbench?limit=100'],
      ['timeline, deep cursor', `/workbench?before=${Math.floor(head / 2)}&limit=100`],
      ['timeline, only old entries match', `/workbench?episode=${ep}&limit=100`],
      ['timeline, nothing matches', '/workbench?outcome=refused&limit=100'],
      ['timeline, tool filter', '/workbench?tool=ailang-read&limit=100'],
      ['timeline, time filter', `/workbench?since=2000-01-01T00:00&limit=100`],
      ['entry, newest', `/workbench/entry/${head}`],
      ['entry, old call', `/workbench/entry/${firstOld}`],
      [`entry, ${LARGE_WRITE_LINES}-line write`, `/workbench/entry/${largeWrite}`],
      ['why, old call', `/workbench/why?target=${firstOld}`],
      ['episodes', '/workbench/episodes'],
      ['episode, old', `/workbench/episodes/${ep}`],
      ['overview', '/workbench/overview'],
    ];
    for (const [page, path] of pages) {
      const t = await timePage(target.baseUrl, target.operatorToken, page, path);
      timings.push(t);
      log(
        `  ${page.padEnd(34)} ${String(t.status)} server first ${t.serverFirst.toFixed(1)} p50 ${t.serverP50.toFixed(1)} p95 ${t.serverP95.toFixed(1)} max ${t.serverMax.toFixed(1)} ms; client p50 ${t.clientP50.toFixed(1)} ms ${t.meetsTarget ? 'ok' : 'OVER'}`,
      );
    }
  } finally {
    await target.close();
    await rm(root, { recursive: true, force: true });
  }
  const loadavgEnd = loadavg();
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const report = {
    date,
    mode: quick ? 'quick' : 'full',
    entries,
    targetMs: PAGE_TARGET_MS,
    machine: { cpus: cpus().length, node: process.versions.node, loadavgStart, loadavgEnd },
    pages: timings,
    met: timings.every((t) => t.meetsTarget),
  };
  const lines = [
    `# Workbench pages at ${entries} entries (${date})`,
    '',
    `load average start ${loadavgStart.map((l) => l.toFixed(2)).join(' ')}, end ${loadavgEnd.map((l) => l.toFixed(2)).join(' ')} on ${cpus().length} CPUs; target: server first and p95 ≤ ${PAGE_TARGET_MS} ms (p50/p95/max over ${RUNS} runs after ${WARMUP} warm-up)`,
    '',
    '| page | path | status | server first | server p50 | server p95 | server max | client p50 | target |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...timings.map(
      (t) =>
        `| ${t.page} | \`${t.path}\` | ${t.status} | ${t.serverFirst.toFixed(1)} | ${t.serverP50.toFixed(1)} | ${t.serverP95.toFixed(1)} | ${t.serverMax.toFixed(1)} | ${t.clientP50.toFixed(1)} | ${t.meetsTarget ? 'met' : 'NOT met'} |`,
    ),
  ];
  log(
    `load average start ${loadavgStart.map((l) => l.toFixed(2)).join(' ')}, end ${loadavgEnd.map((l) => l.toFixed(2)).join(' ')}`,
  );
  await mkdir(resultsDir, { recursive: true });
  const stem = join(resultsDir, `${date.replace(/:/g, '-')}-workbench${quick ? '-quick' : ''}`);
  await writeFile(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(`${stem}.md`, `${lines.join('\n')}\n`);
  log(`wrote ${stem}.json and ${stem}.md`);
}
