/**
 * The watchdog `world start` runs beside its PostgreSQL server (spawned by server.ts as
 * `node watchdog.js <worldPid> <pgdata>`, detached, stdin a pipe from World). When World ends in
 * any way — SIGKILL included — the pipe closes (or World's pid stops running): the watchdog then
 * sends the server in `<pgdata>/postmaster.pid` SIGINT (PostgreSQL's fast shutdown: open
 * transactions roll back, committed ones are already in the WAL), escalates to SIGQUIT after
 * STOP_GRACE_MS, and exits. So a World that cannot run its own shutdown never leaves its server
 * orphaned for longer than about a second.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How often (ms) the watchdog checks World's pid (the pipe usually tells it first). */
const POLL_MS = 500;
/** How long (ms) the server has for a fast shutdown before it is sent SIGQUIT. */
const STOP_GRACE_MS = 5_000;

const [worldPid, pgdata] = [Number(process.argv[2]), process.argv[3]!];

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function serverPid(): number | undefined {
  try {
    const pid = Number(readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

let stopping = false;
function stopServer(): void {
  if (stopping) return;
  stopping = true;
  const pid = serverPid();
  if (pid === undefined || !running(pid)) process.exit(0);
  process.kill(pid, 'SIGINT');
  const started = Date.now();
  const wait = setInterval(() => {
    if (!running(pid)) process.exit(0);
    if (Date.now() - started > STOP_GRACE_MS) {
      process.kill(pid, 'SIGQUIT');
      process.exit(0);
    }
  }, 100);
  wait.ref();
}

process.stdin.on('data', () => undefined);
process.stdin.on('end', stopServer);
process.stdin.on('close', stopServer);
process.stdin.on('error', stopServer);
setInterval(() => {
  if (!running(worldPid)) stopServer();
}, POLL_MS);
// World tells the watchdog it stopped the server itself: nothing left to watch.
process.on('SIGTERM', () => process.exit(0));
