import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../commands/util.js';
import {
  HOME_LOCK_NAME,
  HOME_LOCK_OWNER_NAME,
  isRunning,
  lockHome,
  makeHome,
  readOwner,
  type HomeLock,
} from './home-lock.js';

/** The pid of a process that has exited (and been reaped): no process runs with it now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

/** What lockHome threw. */
async function refusal(home: string): Promise<CliError> {
  try {
    const lock = await lockHome(home);
    await lock.release();
  } catch (err) {
    return err as CliError;
  }
  throw new Error('lockHome did not refuse');
}

/** A lock left as another holder would leave it: the directory, and the owner file. */
async function leaveLock(home: string, owner: { pid: number; host: string } | null, ageMs = 0) {
  await mkdir(join(home, HOME_LOCK_NAME), { recursive: true });
  if (owner !== null)
    await writeFile(join(home, HOME_LOCK_OWNER_NAME), `${JSON.stringify(owner)}\n`);
  const at = new Date(Date.now() - ageMs);
  await utimes(join(home, HOME_LOCK_NAME), at, at);
}

// QA: `WORLD_HOME=/proc/nope world start` hung in Node's recursive mkdir instead of exiting 2.
describe('makeHome (creating WORLD_HOME)', () => {
  it('creates the home and its missing parents with mode 0700, and accepts an existing one', async () => {
    const root = await mkdtemp(join(tmpdir(), 'world-home-make-'));
    try {
      const home = join(root, 'a', 'b', 'home');
      await makeHome(home);
      await makeHome(home);
      for (const dir of [join(root, 'a'), join(root, 'a', 'b'), home]) {
        expect(((await stat(dir)).mode & 0o777).toString(8)).toBe('700');
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('refuses a home that cannot be created with exit 2 instead of hanging (/proc)', async () => {
    const err = await makeHome('/proc/world-no-home/x').then(
      () => null,
      (e: unknown) => e as CliError,
    );
    expect(err).toBeInstanceOf(CliError);
    expect(err!.exitCode).toBe(2);
    expect(err!.message).toBe(
      "cannot create WORLD_HOME /proc/world-no-home/x: ENOENT: no such file or directory, mkdir '/proc/world-no-home'",
    );
  });
});

// QA: two `world start` on one WORLD_HOME served one database directory; the second must exit 2
// naming the home and the holder, and a SIGKILLed holder must not block the next start.
describe('lockHome (one World per WORLD_HOME)', () => {
  let dir: string;
  let home: string;
  const locks: HomeLock[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-home-lock-'));
    home = join(dir, 'home');
  });
  afterEach(async () => {
    for (const lock of locks.splice(0)) await lock.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the home, holds world.lock and names this process as its holder', async () => {
    const lock = await lockHome(home);
    locks.push(lock);
    expect(lock.path).toBe(join(home, 'world.lock'));
    expect(existsSync(lock.path)).toBe(true);
    expect(JSON.parse(await readFile(join(home, 'world.lock.owner'), 'utf8'))).toEqual({
      pid: process.pid,
      host: hostname(),
    });
  });

  it('refuses a second holder with exit 2, naming the home and the holder pid', async () => {
    locks.push(await lockHome(home));
    const err = await refusal(home);
    expect(err).toBeInstanceOf(CliError);
    expect([err.exitCode, err.message]).toEqual([
      2,
      `WORLD_HOME ${home} is in use by pid ${process.pid}; stop that World first or set another WORLD_HOME`,
    ]);
  });

  it('refuses while a live process on this host holds it', async () => {
    await leaveLock(home, { pid: process.ppid, host: hostname() });
    const err = await refusal(home);
    expect([err.exitCode, err.message]).toEqual([
      2,
      `WORLD_HOME ${home} is in use by pid ${process.ppid}; stop that World first or set another WORLD_HOME`,
    ]);
  });

  it('names the host of a holder on another host, and an unknown holder', async () => {
    await leaveLock(home, { pid: 4242, host: 'elsewhere' });
    expect((await refusal(home)).message).toBe(
      `WORLD_HOME ${home} is in use by pid 4242 on elsewhere; stop that World first or set another WORLD_HOME`,
    );
    await rm(join(home, HOME_LOCK_OWNER_NAME));
    expect((await refusal(home)).message).toBe(
      `WORLD_HOME ${home} is in use by another process (pid unknown); stop that World first or set another WORLD_HOME`,
    );
  });

  it('takes over at once a fresh lock whose holder on this host is dead (SIGKILL)', async () => {
    const pid = await deadPid();
    expect(isRunning(pid)).toBe(false);
    await leaveLock(home, { pid, host: hostname() });
    locks.push(await lockHome(home));
    expect(await readOwner(join(home, HOME_LOCK_OWNER_NAME))).toEqual({
      pid: process.pid,
      host: hostname(),
    });
  });

  it('takes over a lock not refreshed for longer than the stale threshold, whoever held it', async () => {
    await leaveLock(home, { pid: 4242, host: 'elsewhere' }, 60_000);
    const lock = await lockHome(home, { staleMs: 30_000 });
    locks.push(lock);
    expect(existsSync(lock.path)).toBe(true);
  });

  it('release removes the lock and its owner file, once; the home can be locked again', async () => {
    const lock = await lockHome(home);
    await lock.release();
    await lock.release();
    expect([
      existsSync(join(home, 'world.lock')),
      existsSync(join(home, 'world.lock.owner')),
    ]).toEqual([false, false]);
    locks.push(await lockHome(home));
  });

  it('reads only a well-formed owner file', async () => {
    await mkdir(home, { recursive: true });
    const file = join(home, HOME_LOCK_OWNER_NAME);
    const rows: Array<[string, unknown]> = [
      ['{"pid":12,"host":"h"}', { pid: 12, host: 'h' }],
      ['{"pid":0,"host":"h"}', undefined],
      ['{"pid":"12","host":"h"}', undefined],
      ['not json', undefined],
    ];
    const read = [];
    for (const [text] of rows) {
      await writeFile(file, text);
      read.push(await readOwner(file));
    }
    expect(read).toEqual(rows.map(([, owner]) => owner));
    expect(await readOwner(join(home, 'absent'))).toBeUndefined();
  });
});
