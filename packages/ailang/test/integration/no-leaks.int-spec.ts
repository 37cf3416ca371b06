import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@world/testing';
import { embeddedToolchain, renderPolicyToml } from '../../src/index.js';
import type { AilangContext } from '../../src/toolchain/types.js';
import { episodePolicy } from '../helpers/programs.js';

/**
 * The embedded runner never leaves a worker thread or a child process behind (world-internals
 * §12 incident 13): 200 runs mixing normal exits, runtime escapes, refusals and timeouts leave
 * this process with the threads and children it had before.
 */

const RUNS = 200;
// Linux lists a process's threads under /proc/self/task.
const threads = (): number => readdirSync('/proc/self/task').length;

function children(): number {
  let n = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (after the parenthesised command) is the parent pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) n++;
    } catch {
      // the process exited while we looked
    }
  }
  return n;
}

describe('the embedded runner leaves nothing behind', () => {
  const tc = embeddedToolchain();
  let root: string;
  let ctx: AilangContext;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ailang-leak-'));
    const worktree = join(root, 'ws');
    mkdirSync(worktree);
    writeFileSync(
      join(worktree, 'ok.ail'),
      'module ok\nimport std/io (println)\nexport func main() -> () ! {IO} = println("ok")\n',
    );
    writeFileSync(
      join(worktree, 'escape.ail'),
      'module escape\nimport std/io (println)\nimport std/fs (readFile)\nexport func main() -> () ! {IO, FS} = println(readFile("/etc/hosts"))\n',
    );
    writeFileSync(
      join(worktree, 'spin.ail'),
      'module spin\npure func s(n: int) -> int = s(n + 1)\nexport func main() -> int = s(0)\n',
    );
    writeFileSync(join(worktree, 'net.ail'), 'module net\nexport func main() -> () ! {Net} = ()\n');
    // timeout_ms counts from admission, so a loaded machine does not turn slow start-ups into timeouts.
    const policy = episodePolicy(worktree, { timeout_ms: 300 });
    const policyPath = join(root, 'ep.toml');
    writeFileSync(policyPath, renderPolicyToml(policy));
    ctx = { worktree, policy, policyPath, runAllowCaps: [], netAllow: [], deadlineMs: 60_000 };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(`keeps the thread and child-process counts over ${RUNS} runs, timeouts and escapes included`, async () => {
    // Every tenth run is an endless loop stopped at the timeout.
    const kinds = [
      'spin.ail',
      'ok.ail',
      'escape.ail',
      'net.ail',
      'ok.ail',
      'escape.ail',
      'net.ail',
      'ok.ail',
      'escape.ail',
      'net.ail',
    ];
    // Warm up: lazily created pools (libuv, V8 platform) exist before the baseline.
    for (const path of new Set(kinds)) await tc.run(ctx, { path });
    await tc.aiCheck(ctx, { path: 'ok.ail' });
    const baseline = { threads: threads(), children: children() };

    const settled = await Promise.allSettled(
      Array.from({ length: RUNS }, (_, i) => tc.run(ctx, { path: kinds[i % kinds.length]! })),
    );
    const exitCodes = new Map<string, (number | string)[]>();
    settled.forEach((s, i) => {
      const k = kinds[i % kinds.length]!;
      const code = s.status === 'fulfilled' ? (s.value.exit_code as number) : String(s.reason);
      exitCodes.set(k, [...new Set([...(exitCodes.get(k) ?? []), code])]);
    });
    expect(Object.fromEntries(exitCodes)).toEqual({
      'ok.ail': [0],
      'escape.ail': [1],
      'spin.ail': [3],
      'net.ail': [2],
    });

    const after = await eventually(
      () => {
        const now = { threads: threads(), children: children() };
        return now.threads === baseline.threads && now.children === baseline.children
          ? now
          : undefined;
      },
      10_000,
      'threads and children back to the baseline',
    );
    expect(after).toEqual(baseline);
    // 200 runs on a loaded 2-core machine can take minutes; what is asserted is the counts, not the time.
  }, 300_000);
});
