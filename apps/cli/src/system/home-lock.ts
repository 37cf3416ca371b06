import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import { CliError } from '../commands/util.js';

/**
 * The lock directory `world start` and `world up` hold inside WORLD_HOME (proper-lockfile).
 * @internal exported for home-lock.spec.ts
 */
export const HOME_LOCK_NAME = 'world.lock';
/**
 * The file naming the lock's holder (`{"pid":…,"host":…}`), next to the lock directory.
 * @internal exported for home-lock.spec.ts
 */
export const HOME_LOCK_OWNER_NAME = 'world.lock.owner';
/**
 * A lock whose directory was not refreshed for this long is stale (its holder died without
 * releasing it, e.g. SIGKILL on another host); the holder refreshes it every quarter of it.
 * On this host a dead holder's lock is taken over at once (its pid no longer runs).
 */
const HOME_LOCK_STALE_MS = 20_000;
/** How long a starter that found a dead holder waits before breaking its lock (see lockHome). */
const DEAD_HOLDER_SETTLE_MS = 250;
/** The lock directories this process holds (its own pid in an owner file is then no stale pid). */
const held = new Set<string>();

/**
 * A held lock on WORLD_HOME.
 * @internal exported for home-lock.spec.ts
 */
export interface HomeLock {
  /** the lock directory */
  path: string;
  /** Releases the lock (idempotent). */
  release(): Promise<void>;
}

/** Who holds a lock, as its owner file says. */
interface LockOwner {
  pid: number;
  host: string;
}

/** Options of lockHome. */
export interface HomeLockOptions {
  /**
   * Called when the held lock is lost (its directory removed or taken over as stale while this
   * process did not refresh it); the default writes one line and sends this process SIGTERM.
   */
  onCompromised?: (err: Error) => void;
  /** staleness threshold (default HOME_LOCK_STALE_MS; tests shorten it) */
  staleMs?: number;
}

/**
 * Creates WORLD_HOME (mode 0700) and its missing parents, one directory at a time: Node's
 * `mkdir(…, { recursive: true })` never returns under a file system that refuses every mkdir with
 * ENOENT, such as /proc (QA: `WORLD_HOME=/proc/nope world start` hung instead of exiting 2).
 * @param home an absolute path
 * @throws CliError (exit 2) `cannot create WORLD_HOME <home>: <reason>`
 * @internal exported for home-lock.spec.ts
 */
export async function makeHome(home: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = home; ; dir = dirname(dir)) {
    try {
      await mkdir(dir, { mode: 0o700 });
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') break;
      if (code !== 'ENOENT' || dirname(dir) === dir || missing.length >= 64) {
        throw new CliError(`cannot create WORLD_HOME ${home}: ${(err as Error).message}`, 2);
      }
      missing.unshift(dir);
    }
  }
  for (const dir of missing) {
    try {
      await mkdir(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new CliError(`cannot create WORLD_HOME ${home}: ${(err as Error).message}`, 2);
    }
  }
}

/**
 * Takes the exclusive lock on a World home for this process's lifetime, so two World instances
 * never serve one PostgreSQL cluster (or one set of worktrees) at once. The lock is a directory
 * (`<home>/world.lock`, created atomically by proper-lockfile and refreshed while held); the
 * holder's pid and host are written next to it. A lock left by a holder that died is recovered:
 * on this host at once when its pid no longer runs, anywhere once it is older than `staleMs`.
 * proper-lockfile also removes a held lock when the process exits normally or on a signal.
 * @throws CliError (exit 2) naming the home and the holder's pid when another process holds it
 * @internal exported for home-lock.spec.ts
 */
export async function lockHome(home: string, options: HomeLockOptions = {}): Promise<HomeLock> {
  await makeHome(home);
  const path = join(home, HOME_LOCK_NAME);
  const ownerFile = join(home, HOME_LOCK_OWNER_NAME);
  const stale = options.staleMs ?? HOME_LOCK_STALE_MS;
  const onCompromised =
    options.onCompromised ??
    ((err: Error) => {
      process.stderr.write(
        `world: lost the lock on WORLD_HOME ${home} (${err.message}); stopping\n`,
      );
      process.kill(process.pid, 'SIGTERM');
    });
  const acquire = () =>
    lockfile.lock(home, {
      lockfilePath: path,
      stale,
      update: Math.max(1_000, Math.floor(stale / 4)),
      realpath: false,
      onCompromised,
    });
  let unlock: () => Promise<void>;
  try {
    unlock = await acquire();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    const owner = await readOwner(ownerFile);
    if (owner === undefined || held.has(path) || !(await holderIsDead(owner, ownerFile))) {
      throw new CliError(heldMessage(home, owner), 2);
    }
    // The holder died on this host (SIGKILL, power loss of the process): break its lock.
    await rmdir(path).catch(() => undefined);
    try {
      unlock = await acquire();
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'ELOCKED') throw again;
      throw new CliError(heldMessage(home, await readOwner(ownerFile)), 2);
    }
  }
  held.add(path);
  await writeFile(ownerFile, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`, {
    mode: 0o600,
  });
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      held.delete(path);
      await rm(ownerFile, { force: true });
      await unlock().catch(() => undefined);
    },
  };
}

/**
 * Runs `start` under the lock on `home` and keeps the lock for the started system's lifetime:
 * its `stopKey` method (close or stop) releases the lock after it ran; a failed start releases
 * it at once. Shared by `world start` and `world up`.
 * @throws what lockHome throws (CliError exit 2 when another process holds the home), or what
 *   `start` throws
 */
export async function underHomeLock<K extends string, T extends Record<K, () => Promise<void>>>(
  home: string,
  options: HomeLockOptions | undefined,
  stopKey: K,
  start: () => Promise<T>,
): Promise<T> {
  const lock = await lockHome(home, options);
  let system: T;
  try {
    system = await start();
  } catch (err) {
    await lock.release();
    throw err;
  }
  const stop = system[stopKey].bind(system);
  system[stopKey] = (async () => {
    try {
      await stop();
    } finally {
      await lock.release();
    }
  }) as T[K];
  return system;
}

/** The one line a second start prints (exit 2). */
function heldMessage(home: string, owner: LockOwner | undefined): string {
  const who =
    owner === undefined
      ? 'another process (pid unknown)'
      : `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}`;
  return `WORLD_HOME ${home} is in use by ${who}; stop that World first or set another WORLD_HOME`;
}

/**
 * The owner file's holder, or undefined when absent or unreadable.
 * @internal exported for home-lock.spec.ts
 */
export async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<LockOwner>;
    return typeof value.pid === 'number' &&
      Number.isInteger(value.pid) &&
      value.pid > 0 &&
      typeof value.host === 'string'
      ? { pid: value.pid, host: value.host }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when the holder ran on this host and is gone: its pid no longer runs, or is this very
 * process (a restarted container reuses its pid; lockHome has checked this process does not hold
 * the lock itself). The owner
 * file is read again after a short pause, so a starter that has just taken the lock (and not
 * yet written its own pid over a dead holder's) is not mistaken for the dead one.
 */
async function holderIsDead(owner: LockOwner, ownerFile: string): Promise<boolean> {
  if (owner.host !== hostname()) return false;
  if (owner.pid !== process.pid && isRunning(owner.pid)) return false;
  await new Promise((resolve) => setTimeout(resolve, DEAD_HOLDER_SETTLE_MS));
  const again = await readOwner(ownerFile);
  return again !== undefined && again.pid === owner.pid && again.host === owner.host;
}

/** True when a process with this pid exists (EPERM: it exists, owned by another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
