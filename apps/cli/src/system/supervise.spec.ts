import type { ChildProcess } from 'node:child_process';
import { restartDelay, superviseReplicas } from './supervise.js';
import type { ServiceProcess } from './up.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A stand-in for one started process: the test decides when it is ready and when it exits. */
function fakeProcess(replica: string, pid: number) {
  let exit!: (how: { code: number | null; signal: NodeJS.Signals | null }) => void;
  let ready!: () => void;
  const child = { pid, exitCode: null as number | null, signalCode: null as string | null };
  const proc = {
    service: 'broker',
    replica,
    child: child as unknown as ChildProcess,
    exited: new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (exit = r)),
    ready: new Promise<void>((r) => (ready = r)),
  } as ServiceProcess;
  return {
    proc,
    ready: () => ready(),
    kill: (signal: NodeJS.Signals) => {
      child.signalCode = signal;
      exit({ code: null, signal });
    },
  };
}

/** A supervised set whose respawn makes a new fake process with the next pid. */
function fakeSystem() {
  const fakes = new Map<string, ReturnType<typeof fakeProcess>>();
  let pid = 100;
  const first = fakeProcess('broker-1', pid);
  fakes.set('broker-1', first);
  const respawned: string[] = [];
  const system = {
    processes: [first.proc],
    respawn(replica: string) {
      respawned.push(replica);
      const fresh = fakeProcess(replica, ++pid);
      fakes.set(replica, fresh);
      system.processes[0] = fresh.proc;
      return fresh.proc;
    },
  };
  return { system, current: () => fakes.get('broker-1')!, respawned };
}

describe('restartDelay (world up supervision: a doubling back-off)', () => {
  it.each([
    [1, 500],
    [2, 1_000],
    [3, 2_000],
    [6, 16_000],
    [7, 30_000],
    [100, 30_000],
  ])('waits before restart %i: %i ms', (n, ms) => {
    expect(restartDelay(n)).toBe(ms);
  });

  it.each([0, -1, 1.5])('refuses restart number %s', (n) => {
    expect(() => restartDelay(n)).toThrow(new RangeError(`restart number must be ≥ 1, got ${n}`));
  });
});

describe('superviseReplicas', () => {
  it('logs an unexpected exit, restarts the replica after the back-off, logs it ready, and backs off further on the next exit in a row', async () => {
    const { system, current, respawned } = fakeSystem();
    const lines: string[] = [];
    const delays: number[] = [];
    const supervisor = superviseReplicas(system, {
      log: (l) => lines.push(l),
      delay: (n) => (delays.push(n), 5 * n),
      stableMs: 1_000,
    });
    current().kill('SIGKILL');
    while (respawned.length < 1) await sleep(2);
    current().ready();
    await sleep(5);
    current().kill('SIGKILL');
    while (respawned.length < 2) await sleep(2);
    supervisor.stop();
    expect(lines).toEqual([
      'world up: broker-1 exited (code null, signal SIGKILL); restarting it in 5 ms (restart 1)',
      'world up: broker-1 restarted (pid 101)',
      'world up: broker-1 exited (code null, signal SIGKILL); restarting it in 10 ms (restart 2)',
    ]);
    expect([respawned, delays]).toEqual([
      ['broker-1', 'broker-1'],
      [1, 2],
    ]);
  });

  it('starts the back-off over once a restarted replica stayed ready for stableMs', async () => {
    const { system, current, respawned } = fakeSystem();
    const lines: string[] = [];
    const supervisor = superviseReplicas(system, {
      log: (l) => lines.push(l),
      delay: (n) => n,
      stableMs: 10,
    });
    current().kill('SIGTERM');
    while (respawned.length < 1) await sleep(2);
    current().ready();
    await sleep(40);
    current().kill('SIGTERM');
    while (respawned.length < 2) await sleep(2);
    supervisor.stop();
    expect(lines.filter((l) => l.includes('exited'))).toEqual([
      'world up: broker-1 exited (code null, signal SIGTERM); restarting it in 1 ms (restart 1)',
      'world up: broker-1 exited (code null, signal SIGTERM); restarting it in 1 ms (restart 1)',
    ]);
  });

  it('restarts nothing once stopped: neither a pending restart nor a later exit', async () => {
    const { system, current, respawned } = fakeSystem();
    const lines: string[] = [];
    const supervisor = superviseReplicas(system, { log: (l) => lines.push(l), delay: () => 20 });
    current().kill('SIGKILL');
    await sleep(1);
    supervisor.stop();
    await sleep(50);
    expect([respawned, lines.length]).toEqual([[], 1]);
    const second = fakeSystem();
    superviseReplicas(second.system, { log: (l) => lines.push(l), delay: () => 1 }).stop();
    second.current().kill('SIGKILL');
    await sleep(20);
    expect([second.respawned, lines.length]).toEqual([[], 1]);
  });
});
