import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CliError } from '../../commands/util.js';
import { isRunning } from '../home-lock.js';
import { postgresBinaries, type PostgresBinaries } from './binaries.js';
import { assertUsable, clusterState, CLUSTER_ROLE, initCluster, postmasterPid } from './cluster.js';
import { clusterOwner, type ClusterOwner } from './owner.js';

/** How long (ms) a fast shutdown may take before the server gets SIGQUIT (within the 10 s grace). */
const SERVER_STOP_MS = 8_000;
/** How long (ms) a starting server has to accept connections. */
const SERVER_READY_MS = 30_000;
/** Waits (ms) between restarts of a server that died while World runs; the last one repeats. */
const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000];
/** The longest Unix socket path (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;
/** The server's port: with no TCP listener it only names the socket, `.s.PGSQL.5432`. */
const PORT = 5432;

/** A PostgreSQL server `world start` runs (DESIGN.md §5 "Embedded mode"). */
export interface PostgresServer {
  /** a node-postgres connection string over the server's Unix socket */
  url: string;
  pgdata: string;
  /** the server's log file, under WORLD_HOME */
  logFile: string;
  /** the running postmaster's pid, or undefined while it is down */
  pid(): number | undefined;
  /** Fast shutdown (SIGINT, SIGQUIT after SERVER_STOP_MS), then the watchdog ends; idempotent. */
  stop(): Promise<void>;
}

/** Options of startPostgresServer. */
export interface PostgresServerOptions {
  /** WORLD_HOME (the cluster is `<home>/pgdata`, its log `<home>/postgres.log`) */
  home: string;
  /** one line for the operator (default: stderr) */
  say?: (line: string) => void;
}

/**
 * Starts World's own PostgreSQL server on `<home>/pgdata`, creating the cluster on first start.
 * Listens only on a Unix socket inside the data directory (listen_addresses empty), fsync and
 * synchronous_commit on, its log appended to `<home>/postgres.log`. Before starting it stops a
 * leftover server of the same data directory (its postmaster.pid names a running process: a
 * World that was SIGKILLed and whose watchdog has not finished). A watchdog process stops the
 * server when this process dies without stopping it; when the server dies while World runs it
 * is restarted with RESTART_BACKOFF_MS.
 * @throws CliError (exit 2) for a pgdata holding a PGlite database or something else, a root
 *   setup that cannot be made (owner.ts), or a socket path too long; Error when the server does
 *   not start (with the log's tail)
 */
export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pgdata = join(options.home, 'pgdata');
  const logFile = join(options.home, 'postgres.log');
  const socket = join(pgdata, `.s.PGSQL.${PORT}`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new CliError(
      `WORLD_HOME ${options.home} is too long for PostgreSQL's Unix socket (${socket} has ${Buffer.byteLength(socket)} bytes, at most ${MAX_SOCKET_PATH}); set a shorter WORLD_HOME`,
      2,
    );
  }
  await mkdir(options.home, { recursive: true, mode: 0o700 }); // world start has made it already
  const state = await clusterState(pgdata);
  assertUsable(state, pgdata);
  const bin = await postgresBinaries();
  // Under root the cluster's owner must traverse WORLD_HOME (made 0700): search only, no listing.
  if (process.getuid?.() === 0)
    await chmod(options.home, ((await stat(options.home)).mode & 0o777) | 0o011);
  const owner = clusterOwner(options.home);
  if (state === 'absent') {
    say(`world: creating the PostgreSQL cluster at ${pgdata} (first start)`);
    await initCluster(pgdata, bin, owner);
  }
  await stopLeftover(pgdata, say);

  let child: ChildProcess | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  const watchdog = startWatchdog(pgdata);

  const launch = async (): Promise<void> => {
    const log = await open(logFile, 'a', 0o600);
    try {
      child = spawnServer(bin, pgdata, owner, log.fd);
    } finally {
      await log.close();
    }
    const started = child;
    started.on('exit', (code, signal) => {
      if (child === started) child = undefined;
      if (stopping) return;
      const wait = RESTART_BACKOFF_MS[Math.min(failures, RESTART_BACKOFF_MS.length - 1)]!;
      failures++;
      say(
        `world: the PostgreSQL server (pid ${started.pid}) exited (${signal ?? `code ${code}`}); restarting it in ${wait} ms (log: ${logFile})`,
      );
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (stopping) return;
        launch()
          .then(() => {
            failures = 0;
            say(`world: the PostgreSQL server is serving again (pid ${child?.pid})`);
          })
          .catch(() => undefined); // its exit event schedules the next try
      }, wait);
    });
    await waitReady(started, pgdata, logFile);
  };

  try {
    await launch();
  } catch (err) {
    stopping = true;
    child?.kill('SIGQUIT');
    watchdog.kill('SIGTERM');
    throw err;
  }

  let stopped: Promise<void> | undefined;
  return {
    url: `postgresql://${CLUSTER_ROLE}@${encodeURIComponent(pgdata)}/postgres`,
    pgdata,
    logFile,
    pid: () => child?.pid,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        if (restartTimer !== undefined) clearTimeout(restartTimer);
        if (child !== undefined) await stopProcess(child.pid!, () => child === undefined);
        watchdog.kill('SIGTERM');
      })();
      return stopped;
    },
  };
}

function spawnServer(
  bin: PostgresBinaries,
  pgdata: string,
  owner: ClusterOwner,
  logFd: number,
): ChildProcess {
  const settings = {
    listen_addresses: '',
    unix_socket_directories: pgdata,
    unix_socket_permissions: '0700',
    port: String(PORT),
    fsync: 'on',
    synchronous_commit: 'on',
    full_page_writes: 'on',
    logging_collector: 'off',
    // After a crash, recovery first syncs the data directory: one syncfs(2) instead of an fsync
    // per file (seconds on a busy disk; Linux only).
    ...(process.platform === 'linux' && { recovery_init_sync_method: 'syncfs' }),
  };
  const args = ['-D', pgdata, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  // Detached: its own process group, so a terminal's Ctrl-C reaches World, which stops the
  // services first and the server after them.
  return spawn(bin.postgres, args, {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, LC_ALL: 'C' },
    ...(owner.uid !== undefined && { uid: owner.uid, gid: owner.gid }),
  });
}

/** Resolves once the server answers `SELECT 1` over its socket. */
async function waitReady(child: ChildProcess, pgdata: string, logFile: string): Promise<void> {
  let exited = child.exitCode !== null || child.signalCode !== null;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + SERVER_READY_MS;
  for (;;) {
    if (exited)
      throw new Error(`the PostgreSQL server exited while starting: ${await tail(logFile)}`);
    const client = new pg.Client({
      host: pgdata,
      port: PORT,
      user: CLUSTER_ROLE,
      database: 'postgres',
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
    }
    if (Date.now() > deadline) {
      child.kill('SIGQUIT');
      throw new Error(
        `the PostgreSQL server did not accept connections within ${SERVER_READY_MS} ms: ${await tail(logFile)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Stops the server a dead World left running on this data directory (the WORLD_HOME lock is
 * held, so no live World owns it): fast shutdown, as the watchdog would.
 */
async function stopLeftover(pgdata: string, say: (line: string) => void): Promise<void> {
  const pid = await postmasterPid(pgdata);
  if (pid === undefined || !isRunning(pid)) return;
  say(`world: stopping a leftover PostgreSQL server (pid ${pid}) of this WORLD_HOME`);
  await stopProcess(pid, () => !isRunning(pid));
}

/** SIGINT, then SIGQUIT after SERVER_STOP_MS; resolves once `gone()` is true. */
async function stopProcess(pid: number, gone: () => boolean): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch {
      // already gone
    }
  };
  signal('SIGINT');
  const started = Date.now();
  let quit = false;
  while (!gone() && isRunning(pid)) {
    if (!quit && Date.now() - started > SERVER_STOP_MS) {
      signal('SIGQUIT');
      quit = true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The watchdog (watchdog.ts) on this process, its stdin a pipe that closes when World dies. */
function startWatchdog(pgdata: string): ChildProcess {
  // Built: dist/system/postgres/watchdog.js beside this module; from src/ (jest), the built one.
  let script = fileURLToPath(new URL('./watchdog.js', import.meta.url));
  if (!existsSync(script)) {
    script = fileURLToPath(new URL('../../../dist/system/postgres/watchdog.js', import.meta.url));
  }
  const dog = spawn(process.execPath, [script, String(process.pid), pgdata], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  dog.unref();
  // The pipe must not keep World's event loop alive either.
  (dog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return dog;
}

/** The last lines of the server's log, for an error message. */
async function tail(logFile: string): Promise<string> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text.trim().split('\n').slice(-5).join(' | ');
}
