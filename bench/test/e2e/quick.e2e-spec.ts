/**
 * The CI smoke run of the bench (issue 7: "a --quick mode … for a smoke run in CI; its numbers
 * are not judged there"): `node bench/run.mjs --quick` must start all five systems (the floor
 * of issue 19 and the embedded floor of issue 13 among them), run every scenario with every call answered and committed, and write
 * a complete report. No timing is asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunReport } from '../../src/report.js';

const RUN = fileURLToPath(new URL('../../run.mjs', import.meta.url));
const SMOKE_TIMEOUT_MS = 600_000;

function runQuick(resultsDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUN, '--quick'], {
      env: { ...process.env, WORLD_BENCH_RESULTS_DIR: resultsDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (output += b.toString('utf8')));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('pnpm bench --quick', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-bench-smoke-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    'runs every scenario on the baseline, both floors and both World modes and reports every target',
    async () => {
      const { code, output } = await runQuick(dir);
      expect({ code, tail: code === 0 ? '' : output.slice(-3000) }).toEqual({ code: 0, tail: '' });
      const files = (await readdir(dir)).sort();
      expect(files.map((f) => f.replace(/^.*Z-/, ''))).toEqual(['quick.json', 'quick.md']);
      const report = JSON.parse(await readFile(join(dir, files[0]!), 'utf8')) as RunReport;
      expect(report.mode).toBe('quick');
      expect(report.scenarios.map((s) => `${s.target}/${s.driver}/${s.scenario}`)).toEqual([
        'baseline/http/c1',
        'baseline/http/c8',
        'baseline/http/c32',
        'baseline/mcp-client/c1',
        'baseline/mcp-client/c8',
        'baseline/mcp-client/c32',
        'floor/http/c1',
        'floor/http/c8',
        'floor/http/c32',
        'floor/http/contention',
        'floor/mcp-client/c1',
        'floor/mcp-client/c8',
        'floor/mcp-client/c32',
        'floor/mcp-client/contention',
        'floor-single/http/c1',
        'floor-single/http/c8',
        'floor-single/http/c32',
        'floor-single/http/contention',
        'floor-single/mcp-client/c1',
        'floor-single/mcp-client/c8',
        'floor-single/mcp-client/c32',
        'floor-single/mcp-client/contention',
        'distributed/http/log-read',
        'distributed/http/c1',
        'distributed/mcp-client/c1',
        'distributed/http/c8',
        'distributed/http/c32',
        'distributed/http/contention',
        'distributed/mcp-client/c8',
        'distributed/mcp-client/c32',
        'distributed/mcp-client/contention',
        'distributed/http/episode-early',
        'distributed/http/episode-late',
        'distributed/http/c1',
        'distributed/http/log-read',
        'embedded/http/c1',
        'embedded/http/c8',
        'embedded/http/c32',
        'embedded/http/contention',
        'embedded/mcp-client/c1',
        'embedded/mcp-client/c8',
        'embedded/mcp-client/c32',
        'embedded/mcp-client/contention',
        'embedded/http/log-read',
      ]);
      expect(
        report.scenarios.filter((s) => s.summary.errors > 0).map((s) => `${s.id}: ${s.firstError}`),
      ).toEqual([]);
      const uncommitted = report.scenarios.filter(
        (s) => s.committed !== undefined && s.committed.calls !== s.committed.entries,
      );
      expect(uncommitted.map((s) => s.id)).toEqual([]);
      expect(report.targets).toHaveLength(25);
      expect(report.targets.filter((t) => t.status === 'N/A').map((t) => t.target)).toEqual([]);
    },
    SMOKE_TIMEOUT_MS,
  );
});
