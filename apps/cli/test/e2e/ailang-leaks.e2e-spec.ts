/**
 * No worker thread or child process outlives an ailang-run call (packages/ailang README "Runs"):
 * 200 runs over MCP in the embedded mode — normal exits, runtime escapes, refusals before execution
 * and endless loops stopped at the policy timeout — leave this process with the threads and
 * children it had.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { deadlineTable } from '@world/contracts';
import { eventually } from '@world/testing';
import { HELLO_AIL, startTestSystem, type TestSystem } from '../support/system.js';

const DEADLINE_MS = 10_000;
const EPISODES = 8;
const RUNS = 200;
const ESCAPE_AIL =
  'module escape\n\nimport std/fs (readFile)\nimport std/io (println)\n\nexport func main() -> () ! {IO, FS} {\n  println(readFile("/etc/hosts"))\n}\n';
const NET_AIL =
  'module net\n\nimport std/io (println)\n\nexport func main() -> () ! {IO, Net} {\n  println("net")\n}\n';
const LOOP_AIL =
  'module loop\n\nimport std/io (println)\n\npure func spin(n: int) -> int = spin(n + 1)\n\nexport func main() -> () ! {IO} {\n  println("starting")\n  println(show(spin(0)))\n}\n';

/** Threads of this process (worker threads are threads), from /proc. */
const threads = () => readdirSync('/proc/self/task').length;
/** Child processes of this process, from /proc. */
const children = () =>
  readdirSync('/proc/self/task')
    .flatMap((t) => readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(/\s+/))
    .filter((pid) => pid !== '');

describe('ailang-run leaves no worker or child process behind (embedded mode)', () => {
  let w: TestSystem;
  const tokens: string[] = [];

  beforeAll(async () => {
    w = await startTestSystem('embedded', { callDeadlineMs: DEADLINE_MS });
    for (let i = 0; i < EPISODES; i++) {
      await w.episode(`leak${i}`, {
        'hello.ail': HELLO_AIL,
        'escape.ail': ESCAPE_AIL,
        'net.ail': NET_AIL,
        'loop.ail': LOOP_AIL,
      });
      tokens.push(
        await w.session(`leak${i}`, [{ effect: 'Ailang.Run', scope: 'worktree', budget: RUNS }]),
      );
    }
  });
  afterAll(async () => {
    await w?.close();
  });

  it(`runs ${RUNS} programs and ends with the threads and children it started with`, async () => {
    // Warm up once so lazily created pools (libuv, the toolchain's slots) exist before counting.
    await w.call(tokens[0]!, 'ailang-run', { path: 'hello.ail' });
    const threadsBefore = threads();
    const childrenBefore = children();

    const exits: Record<string, number[]> = {};
    const run = async (token: string, path: string) => {
      const out = (await w.call(token, 'ailang-run', { path })) as {
        exit_code: number;
        world: { effects: Array<{ status: string }> };
      };
      expect(out.world.effects[0]!.status).toBe('ok');
      (exits[path] ??= []).push(out.exit_code);
    };
    // One endless loop per episode, two at a time: each is stopped by the supervisor at the policy
    // timeout (exit 3), never by the handler cap (a failed effect). Eight CPU-bound loops at once
    // on two cores would starve the supervisor's timers, which is not what this test is about.
    for (let i = 0; i < EPISODES; i += 2)
      await Promise.all([run(tokens[i]!, 'loop.ail'), run(tokens[i + 1]!, 'loop.ail')]);
    const programs = ['hello.ail', 'escape.ail', 'net.ail', 'hello.ail', 'escape.ail'];
    await Promise.all(
      tokens.map(async (token, episode) => {
        for (let i = 1; i < RUNS / EPISODES; i++)
          await run(token, programs[(episode + i) % programs.length]!);
      }),
    );
    expect(Object.values(exits).flat().length).toBe(RUNS);
    expect(new Set(exits['loop.ail'])).toEqual(new Set([3]));
    expect(new Set(exits['hello.ail'])).toEqual(new Set([0]));
    expect(new Set(exits['escape.ail'])).toEqual(new Set([1]));
    expect(new Set(exits['net.ail'])).toEqual(new Set([2]));
    expect(deadlineTable(DEADLINE_MS).policyTimeoutMs).toBe(4_000);

    // Terminated workers are reaped asynchronously: wait for the count to come back.
    await eventually(
      () => (threads() <= threadsBefore ? true : undefined),
      15_000,
      `threads back to ${threadsBefore}`,
    );
    expect(threads()).toBeLessThanOrEqual(threadsBefore);
    expect(children()).toEqual(childrenBefore);
  }, 300_000);
});
