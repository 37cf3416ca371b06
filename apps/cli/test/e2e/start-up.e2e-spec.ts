/**
 * `world start` and `world up` as the processes a user runs (QA review): a bad configuration
 * exits 2 with one line, in `world start` and in each service process; one World per
 * WORLD_HOME (a second start exits 2 naming the home and the holder's pid; a SIGKILLed holder
 * does not block the next start); `world up`'s services run in process groups of their own, so
 * a terminal's Ctrl-C (SIGINT to the foreground group) reaches only `world up`, which stops
 * gateways, planners, brokers and ledgers in that order; and they end when `world up` is
 * SIGKILLed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createTestDatabase,
  eventually,
  freePort,
  testNatsUrl,
  uniquePrefix,
  type TestDatabase,
} from '@world/testing';
import { CLI_ENTRY, requireBuiltCli, runCli, startCli, type RunningCli } from '../support/cli.js';
import { tempHomeRoot } from '../support/system.js';

/** Each run starts Node processes that load the whole of World; nothing here asserts a duration. */
const E2E_TIMEOUT_MS = 300_000;
const LEVELS = 'trace, debug, info, warn, error, fatal, silent';
const inUse = (home: string, pid: number) =>
  `world: WORLD_HOME ${home} is in use by pid ${pid}; stop that World first or set another WORLD_HOME\n`;

/** True while a process with this pid runs (an exited one not yet reaped, a zombie, does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The process group of a pid (/proc/<pid>/stat field 5). */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

describe('world start: a bad configuration exits 2 with one line', () => {
  let home: string;
  beforeAll(async () => {
    requireBuiltCli();
    home = await mkdtemp(join(tmpdir(), 'world-start-config-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const rows: Array<[string, Record<string, string>, string]> = [
    [
      'WORLD_BIND=garbage',
      { WORLD_BIND: 'garbage' },
      'world start: invalid configuration: WORLD_BIND must be host:port (e.g. 127.0.0.1:7644), got "garbage"',
    ],
    [
      'WORLD_BIND beyond loopback',
      { WORLD_BIND: '0.0.0.0:18799' },
      'world start: bind host "0.0.0.0" is not loopback (set WORLD_BIND_PUBLIC=1 to serve beyond loopback)',
    ],
    [
      'AILANG_BIN=/nonexistent',
      { AILANG_BIN: '/nonexistent' },
      'world start: invalid configuration: AILANG_BIN: AILANG_BIN must name an executable file: /nonexistent does not exist',
    ],
    [
      'WORLD_LOG_LEVEL=bogus',
      { WORLD_LOG_LEVEL: 'bogus' },
      `world start: invalid configuration: WORLD_LOG_LEVEL: WORLD_LOG_LEVEL must be one of ${LEVELS}`,
    ],
    [
      'WORLD_PUBLIC_READS=yes',
      { WORLD_PUBLIC_READS: 'yes' },
      'world start: invalid configuration: WORLD_PUBLIC_READS: WORLD_PUBLIC_READS must be 1 or true (on), or 0, false or empty (off)',
    ],
  ];
  it(
    'refuses each before anything starts: exit 2, one line on stderr, nothing on stdout',
    async () => {
      const runs = await Promise.all(
        rows.map(([, env]) => runCli(['start'], { WORLD_HOME: home, ...env })),
      );
      expect(runs.map((r, i) => [rows[i]![0], r.code, r.stdout, r.stderr])).toEqual(
        rows.map(([name, , line]) => [name, 2, '', `${line}\n`]),
      );
      // Nothing was started: no lock, no database.
      expect([existsSync(join(home, 'world.lock')), existsSync(join(home, 'pgdata'))]).toEqual([
        false,
        false,
      ]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'refuses the same in world up, and a service named twice in --replicas, before any process starts',
    async () => {
      const env = {
        WORLD_HOME: join(home, 'up'),
        NATS_URL: 'nats://127.0.0.1:9',
        DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
      };
      const [level, reads, twice] = await Promise.all([
        runCli(['up'], { ...env, WORLD_LOG_LEVEL: 'bogus' }),
        runCli(['up'], { ...env, WORLD_PUBLIC_READS: 'yes' }),
        runCli(['up', '--replicas', 'gateway=2,gateway=3'], env),
      ]);
      expect([level, reads, twice].map((r) => [r.code, r.stdout, r.stderr])).toEqual([
        [
          2,
          '',
          `world up: invalid configuration: WORLD_LOG_LEVEL: WORLD_LOG_LEVEL must be one of ${LEVELS}\n`,
        ],
        [
          2,
          '',
          'world up: invalid configuration: WORLD_PUBLIC_READS: WORLD_PUBLIC_READS must be 1 or true (on), or 0, false or empty (off)\n',
        ],
        [2, '', 'world: --replicas: gateway is given more than once ("gateway=2,gateway=3")\n'],
      ]);
      expect(existsSync(join(home, 'up'))).toBe(false);
    },
    E2E_TIMEOUT_MS,
  );

  const SERVICES = ['ledger', 'broker', 'planner', 'gateway'] as const;
  it(
    'makes WORLD_LOG_LEVEL=bogus exit 2 with one line in every service process, not a pino stack',
    async () => {
      const runs = await Promise.all(
        SERVICES.map(
          (service) =>
            new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
              const entry = fileURLToPath(
                new URL(`../../../${service}/dist/main.js`, import.meta.url),
              );
              const child = spawn(process.execPath, [entry], {
                env: {
                  PATH: process.env.PATH,
                  NATS_URL: 'nats://127.0.0.1:9',
                  DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
                  WORLD_HOME: home,
                  WORLD_LOG_LEVEL: 'bogus',
                },
                stdio: ['ignore', 'pipe', 'pipe'],
              });
              let stdout = '';
              let stderr = '';
              child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
              child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
              child.on('close', (code) => resolve({ code, stdout, stderr }));
            }),
        ),
      );
      expect(runs).toEqual(
        SERVICES.map((service) => ({
          code: 2,
          stdout: '',
          stderr: `${service}: invalid configuration: WORLD_LOG_LEVEL: WORLD_LOG_LEVEL must be one of ${LEVELS}\n`,
        })),
      );
    },
    E2E_TIMEOUT_MS,
  );
});

describe('world start holds WORLD_HOME', () => {
  let home: string;
  const started: RunningCli[] = [];
  beforeAll(async () => {
    requireBuiltCli();
    home = await tempHomeRoot('world-start-lock-');
  });
  afterAll(async () => {
    for (const cli of started) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
      await cli.stop();
    }
    await rm(home, { recursive: true, force: true });
  });

  /** Waits for the banner's first line (JSON log lines come before it). */
  const banner = (cli: RunningCli) =>
    eventually(
      () =>
        cli.lines.includes(`World is running (embedded: PostgreSQL at ${home}/pgdata, no NATS)`)
          ? true
          : undefined,
      120_000,
      `the banner (stderr so far:\n${cli.stderr().slice(-2000)})`,
    );

  it(
    'refuses a second start on the same home (exit 2 naming the home and the pid), recovers at once from a SIGKILLed holder, and releases the lock on SIGTERM',
    async () => {
      const env = { WORLD_HOME: home, WORLD_BIND: '127.0.0.1:0' };
      const first = startCli(['start'], env);
      started.push(first);
      await banner(first);
      const second = await runCli(['start'], env);
      expect(second).toEqual({
        code: 2,
        signal: null,
        stdout: '',
        stderr: inUse(home, first.child.pid!),
      });

      first.child.kill('SIGKILL');
      expect(await first.stop()).toEqual({ code: null, signal: 'SIGKILL' });
      expect(existsSync(join(home, 'world.lock'))).toBe(true);

      const third = startCli(['start'], env);
      started.push(third);
      await banner(third);
      expect(JSON.parse(readFileSync(join(home, 'world.lock.owner'), 'utf8')).pid).toBe(
        third.child.pid,
      );
      expect(await third.stop()).toEqual({ code: 0, signal: null });
      expect([
        existsSync(join(home, 'world.lock')),
        existsSync(join(home, 'world.lock.owner')),
      ]).toEqual([false, false]);
    },
    E2E_TIMEOUT_MS,
  );
});

describe('world up: process groups, Ctrl-C in order, no orphans', () => {
  let db: TestDatabase;
  let dir: string;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    requireBuiltCli();
    db = await createTestDatabase('up-groups');
    dir = await mkdtemp(join(tmpdir(), 'world-up-groups-'));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  }, E2E_TIMEOUT_MS);

  /**
   * Starts `world up` as a terminal's foreground job would run it: the leader of a process group
   * of its own. Resolves once it printed its banner, with the service pids it lists.
   */
  async function up(label: string, args: string[] = []) {
    const home = join(dir, label);
    const child = spawn(process.execPath, [CLI_ENTRY, 'up', ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NATS_URL: testNatsUrl(),
        DATABASE_URL: db.url,
        WORLD_SUBJECT_PREFIX: uniquePrefix(label),
        WORLD_HOME: home,
        WORLD_BIND: `127.0.0.1:${await freePort()}`,
        WORLD_LOG_LEVEL: 'info',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    await eventually(
      () => (stdout.includes('Connect Claude Code') ? true : undefined),
      120_000,
      `world up's banner (stderr so far:\n${stderr.slice(-2000)})`,
    );
    const pids = [...stdout.matchAll(/^ {4}(\S+)\s+pid (\d+)/gm)].map((m) => ({
      replica: m[1]!,
      pid: Number(m[2]),
    }));
    return { child, home, pids, exited, stderr: () => stderr };
  }

  it(
    "runs every service in a process group of its own; SIGINT to world up's group stops gateways, planners, brokers, ledgers in order, then releases the home",
    async () => {
      const u = await up('sigint');
      expect(u.pids.map((p) => p.replica)).toEqual([
        'ledger-1',
        'broker-1',
        'planner-1',
        'gateway-1',
      ]);
      expect(u.pids.map((p) => processGroup(p.pid))).toEqual(u.pids.map((p) => p.pid));
      expect(processGroup(u.child.pid!)).toBe(u.child.pid);
      // What a terminal's Ctrl-C does: SIGINT to the foreground process group.
      process.kill(-u.child.pid!, 'SIGINT');
      expect(await u.exited).toEqual({ code: 0, signal: null });
      const stopped = u
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"msg":"stopped"'))
        .map((l) => /^\[([^\]]+)\]/.exec(l)?.[1]);
      expect(stopped).toEqual(['gateway-1', 'planner-1', 'broker-1', 'ledger-1']);
      expect(u.pids.filter((p) => running(p.pid))).toEqual([]);
      expect(existsSync(join(u.home, 'world.lock'))).toBe(false);
    },
    E2E_TIMEOUT_MS,
  );

  /** The lines `world up` itself wrote about its replicas (not the services' own lines). */
  const upLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('world up: '));
  /** The replicas that logged "stopped", in order. */
  const stoppedOf = (stderr: string) =>
    stderr
      .split('\n')
      .filter((l) => l.includes('"msg":"stopped"'))
      .map((l) => /^\[([^\]]+)\]/.exec(l)?.[1]);

  it(
    'restarts a replica that exits on its own after a back-off, logging the exit and the restart; SIGINT stops the restarted process too',
    async () => {
      const u = await up('restart');
      const broker = u.pids.find((p) => p.replica === 'broker-1')!;
      process.kill(broker.pid, 'SIGKILL');
      const restarted = await eventually(
        () => /^world up: broker-1 restarted \(pid (\d+)\)$/m.exec(u.stderr())?.[1],
        60_000,
        'broker-1 restarted',
      ).then(Number);
      expect(upLines(u.stderr())).toEqual([
        'world up: broker-1 exited (code null, signal SIGKILL); restarting it in 500 ms (restart 1)',
        `world up: broker-1 restarted (pid ${restarted})`,
      ]);
      expect([restarted === broker.pid, running(restarted), processGroup(restarted)]).toEqual([
        false,
        true,
        restarted,
      ]);
      process.kill(-u.child.pid!, 'SIGINT');
      expect(await u.exited).toEqual({ code: 0, signal: null });
      expect(stoppedOf(u.stderr())).toEqual(['gateway-1', 'planner-1', 'broker-1', 'ledger-1']);
      expect([...u.pids.map((p) => p.pid), restarted].filter(running)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'with --no-restart reports a replica that exits and restarts nothing',
    async () => {
      const u = await up('norestart', ['--no-restart']);
      const broker = u.pids.find((p) => p.replica === 'broker-1')!;
      process.kill(broker.pid, 'SIGKILL');
      await eventually(
        () => (upLines(u.stderr()).length > 0 ? true : undefined),
        30_000,
        'the exit reported',
      );
      // Four times the first back-off: a supervising world up would have restarted it by now.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(upLines(u.stderr())).toEqual([
        'world up: broker-1 exited (code null, signal SIGKILL)',
      ]);
      process.kill(-u.child.pid!, 'SIGINT');
      expect(await u.exited).toEqual({ code: 0, signal: null });
      expect(stoppedOf(u.stderr())).toEqual(['gateway-1', 'planner-1', 'ledger-1']);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'leaves no service running when world up itself is SIGKILLed',
    async () => {
      const u = await up('sigkill');
      expect(u.pids).toHaveLength(4);
      u.child.kill('SIGKILL');
      expect(await u.exited).toEqual({ code: null, signal: 'SIGKILL' });
      await eventually(
        () => (u.pids.every((p) => !running(p.pid)) ? true : undefined),
        30_000,
        'every service process to end',
      );
      expect(u.pids.filter((p) => running(p.pid))).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});

describe('world start: a quiet start-up with the banner last', () => {
  let home: string;
  let cli: RunningCli | undefined;
  beforeAll(async () => {
    requireBuiltCli();
    home = await mkdtemp(join(tmpdir(), 'world-start-quiet-'));
  });
  afterAll(async () => {
    await cli?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it(
    'writes only the start-up lines worth reading (JSON, stdout not a terminal), no route maps, then the whole banner',
    async () => {
      cli = startCli(['start'], { WORLD_HOME: home, WORLD_BIND: '127.0.0.1:0' });
      const last = (l: string) => l.includes('--method tools/list');
      const end = (l: string) => l.endsWith('pnpm world workbench --open');
      await eventually(
        () => (cli!.lines.some(end) ? true : undefined),
        120_000,
        `the banner (stderr so far:\n${cli.stderr().slice(-2000)})`,
      );
      const at = cli.lines.findIndex((l) => l.startsWith('World is running'));
      const logs = cli.lines.slice(0, at).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logs.map((l) => [l['service'], l['msg']])).toEqual([
        ['world', `creating the PostgreSQL cluster at ${home}/pgdata (first start)`],
        ['ledger', 'genesis created'],
        ['broker', 'broker started'],
        ['planner', 'answering planner.alive'],
        ['broker', 'episode created'],
        ['world', 'ready'],
      ]);
      const banner = cli.lines.slice(at);
      const url = /^ {2}MCP endpoint: {2}(http:\/\/127\.0\.0\.1:\d+)\/mcp$/.exec(banner[1]!)?.[1];
      expect([banner.length, url, banner[6], banner.findIndex(last), ...banner.slice(10)]).toEqual([
        12,
        expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        'Connect Claude Code:',
        9,
        'Open the workbench (what World recorded, live, in a browser) with a one-time login URL:',
        `  WORLD_URL=${url} WORLD_HOME=${home} pnpm world workbench --open`,
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});
