import { execFileSync } from 'node:child_process';
import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  readdir,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BadRequestError,
  DeadlineExceededError,
  EPISODE_LEASE_TTL_MS,
  NotFoundError,
  READ_ALL,
} from '@world/contracts';
import { ConfigError, InProcessBus, openPostgres } from '@world/runtime';
import { createTestDatabase, eventually } from '@world/testing';
import { startBroker } from '../../src/index.js';
import { EpisodesRepository } from '../../src/episodes/episodes.repository.js';
import { LeaseSignals } from '../../src/episodes/lease-signals.js';
import { RecentReleases } from '../../src/episodes/recent-releases.js';
import { MODES, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };

describe.each(MODES)('episodes and their lease over %s', (_name, mode) => {
  let h: Harness;
  let scratch: string;

  beforeAll(async () => {
    h = await startHarness(mode);
    scratch = await realpath(await mkdtemp(join(tmpdir(), 'broker-src-')));
  });
  afterAll(async () => {
    await h.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('creates an empty worktree under the workspace root, idempotently', async () => {
    const created = await h.rpc.request(
      'broker.episode.create',
      { episodeId: 'empty1', source: { kind: 'empty' } },
      opts,
    );
    expect(created).toEqual({
      episodeId: 'empty1',
      worktree: join(h.workspaceRoot, 'empty1'),
      created: true,
    });
    expect((await lstat(created.worktree)).isDirectory()).toBe(true);
    await expect(
      h.rpc.request(
        'broker.episode.create',
        { episodeId: 'empty1', source: { kind: 'empty' } },
        opts,
      ),
    ).resolves.toEqual({ ...created, created: false });
    await expect(
      h.rpc.request('broker.episode.get', { episodeId: 'empty1' }, opts),
    ).resolves.toEqual({
      episodeId: 'empty1',
      worktree: created.worktree,
    });
    await expect(h.rpc.request('broker.episode.get', { episodeId: 'none' }, opts)).rejects.toEqual(
      new NotFoundError('episode "none" not found'),
    );
  });

  it('copies a directory without following symlinks out of it', async () => {
    const src = join(scratch, 'copy-src');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'a.txt'), 'A');
    await writeFile(join(src, 'sub', 'b.txt'), 'B');
    await symlink('sub/b.txt', join(src, 'inside-link'));
    await symlink('../', join(src, 'up-link'));
    await symlink('/etc/hosts', join(src, 'abs-link'));
    const { worktree } = await h.rpc.request(
      'broker.episode.create',
      { episodeId: 'copy1', source: { kind: 'copy', dir: src } },
      opts,
    );
    expect((await readdir(worktree)).sort()).toEqual(['a.txt', 'inside-link', 'sub']);
    expect(await readFile(join(worktree, 'sub', 'b.txt'), 'utf8')).toBe('B');
    expect(await readlink(join(worktree, 'inside-link'))).toBe('sub/b.txt');
    await expect(
      h.rpc.request(
        'broker.episode.create',
        { episodeId: 'copy2', source: { kind: 'copy', dir: join(scratch, 'missing') } },
        opts,
      ),
    ).rejects.toEqual(
      new BadRequestError(`copy source "${join(scratch, 'missing')}" is not a directory`),
    );
    await expect(
      h.rpc.request(
        'broker.episode.create',
        { episodeId: 'copy3', source: { kind: 'copy', dir: h.worldHome } },
        opts,
      ),
    ).rejects.toEqual(new BadRequestError(`copy source "${h.worldHome}" contains the worktree`));
  });

  it('adds a detached git worktree whose .git is a pointer file', async () => {
    const repo = join(scratch, `repo-${mode}`);
    await mkdir(repo);
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-C', repo, '-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args],
        { stdio: 'pipe' },
      );
    git('init', '-q');
    await writeFile(join(repo, 'hello.ail'), 'module hello\n');
    git('add', 'hello.ail');
    git('commit', '-q', '-m', 'one');
    const { worktree } = await h.rpc.request(
      'broker.episode.create',
      { episodeId: 'git1', source: { kind: 'git', repo } },
      opts,
    );
    expect(await readFile(join(worktree, 'hello.ail'), 'utf8')).toBe('module hello\n');
    expect((await lstat(join(worktree, '.git'))).isFile()).toBe(true);
    expect(await readFile(join(worktree, '.git'), 'utf8')).toMatch(/^gitdir: /);
    await expect(
      h.rpc.request(
        'broker.episode.create',
        { episodeId: 'git2', source: { kind: 'git', repo: scratch } },
        opts,
      ),
    ).rejects.toEqual(new BadRequestError(`git source "${scratch}" is not a git repository`));
    await expect(
      h.rpc.request(
        'broker.episode.create',
        { episodeId: 'git3', source: { kind: 'git', repo, ref: '--help' } },
        opts,
      ),
    ).rejects.toEqual(new BadRequestError('git ref "--help" must not start with "-"'));
  });

  it('refuses a worktree that is a symlink to another directory or a sibling episode', async () => {
    await h.rpc.request(
      'broker.episode.create',
      { episodeId: 'real', source: { kind: 'empty' } },
      opts,
    );
    await symlink(join(h.workspaceRoot, 'real'), join(h.workspaceRoot, 'real2'));
    await expect(
      h.rpc.request(
        'broker.episode.create',
        { episodeId: 'real2', source: { kind: 'empty' } },
        opts,
      ),
    ).rejects.toEqual(
      new BadRequestError(
        `worktree "${join(h.workspaceRoot, 'real2')}" is not a real directory: it is a symlink`,
      ),
    );
    await expect(
      h.rpc.request('broker.episode.get', { episodeId: 'real2' }, opts),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('takes a free lease, makes a second caller wait, and wakes it on release', async () => {
    const first = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId: 'lease1', holder: 'a', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    expect(first).toMatchObject({ fence: 1, tookOver: false });
    await expect(
      h.rpc.request(
        'broker.episode.acquire',
        { episodeId: 'lease1', holder: 'b', ttlMs: 60_000, waitMs: 0 },
        opts,
      ),
    ).rejects.toEqual(
      new DeadlineExceededError('lease of episode "lease1" is held by another call; waited 0 ms'),
    );
    const waiting = h.rpc.request(
      'broker.episode.acquire',
      { episodeId: 'lease1', holder: 'b', ttlMs: 60_000, waitMs: 20_000 },
      opts,
    );
    const renewed = await h.rpc.request(
      'broker.episode.renew',
      { episodeId: 'lease1', holder: 'a', fence: 1, ttlMs: 60_000 },
      opts,
    );
    expect(renewed.expiresAt).toBeGreaterThanOrEqual(first.expiresAt);
    await expect(
      h.rpc.request('broker.episode.release', { episodeId: 'lease1', holder: 'a', fence: 1 }, opts),
    ).resolves.toEqual({
      released: true,
    });
    await expect(waiting).resolves.toMatchObject({ fence: 2, tookOver: false });
    await expect(
      h.rpc.request('broker.episode.release', { episodeId: 'lease1', holder: 'a', fence: 1 }, opts),
    ).resolves.toEqual({
      released: false,
    });
  });

  it('frees a lease on the one-way broker.episode.releaseAsync event, by holder and fence only', async () => {
    const held = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId: 'lease-event', holder: 'a', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    expect(held).toMatchObject({ fence: 1, tookOver: false });
    const lease = async () =>
      (
        await h.rows(
          `SELECT lease_holder AS holder, lease_fence::text AS fence
             FROM broker.episodes WHERE id = 'lease-event'`,
        )
      )[0];
    // A stale fence and a foreign holder change nothing.
    h.rpc.emit('broker.episode.releaseAsync', { episodeId: 'lease-event', holder: 'a', fence: 2 });
    h.rpc.emit('broker.episode.releaseAsync', { episodeId: 'lease-event', holder: 'b', fence: 1 });
    const waiting = h.rpc.request(
      'broker.episode.acquire',
      { episodeId: 'lease-event', holder: 'b', ttlMs: 60_000, waitMs: 30_000 },
      opts,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(await lease()).toEqual({ holder: 'a', fence: '1' });
    h.rpc.emit('broker.episode.releaseAsync', { episodeId: 'lease-event', holder: 'a', fence: 1 });
    // The release wakes the waiter, which takes the lease at the next fence.
    await expect(waiting).resolves.toMatchObject({ fence: 2, tookOver: false });
    expect(await lease()).toEqual({ holder: 'b', fence: '2' });
  });

  it('never lets two holders overlap among concurrent acquirers', async () => {
    let inside = 0;
    let overlaps = 0;
    const fences: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const lease = await h.rpc.request(
          'broker.episode.acquire',
          { episodeId: 'lease2', holder: `h${i}`, ttlMs: 60_000, waitMs: 20_000 },
          opts,
        );
        inside += 1;
        if (inside > 1) overlaps += 1;
        fences.push(lease.fence);
        await new Promise((r) => setTimeout(r, 5));
        inside -= 1;
        await h.rpc.request(
          'broker.episode.release',
          { episodeId: 'lease2', holder: `h${i}`, fence: lease.fence },
          opts,
        );
      }),
    );
    expect(overlaps).toBe(0);
    expect(fences.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('wakes a waiter through NOTIFY when another replica releases', async () => {
    const signals = new LeaseSignals(h.database);
    await signals.onModuleInit();
    const subscription = signals.subscribe('lease3');
    try {
      const other = new EpisodesRepository(h.database);
      const grant = await other.tryAcquire('lease3', 'x', 60_000, Date.now());
      expect(grant).toMatchObject({ fence: 1 });
      let woke = false;
      const waited = subscription.wait(120_000).then(() => (woke = true));
      await other.release('lease3', 'x', 1);
      await eventually(() => (woke ? true : undefined), 10_000, 'the NOTIFY wake-up');
      await waited;
    } finally {
      subscription.close();
      await signals.onModuleDestroy();
    }
  });

  /** The lease columns of an episode row, as text. */
  const leaseOf = async (id: string) =>
    (
      await h.rows(
        `SELECT lease_holder AS holder, lease_fence::text AS fence
           FROM broker.episodes WHERE id = '${id}'`,
      )
    )[0];
  /** What a server crash does to a release committed asynchronously: the lease is held again. */
  const loseRelease = (id: string, holder: string) =>
    h.rows(
      `UPDATE broker.episodes SET lease_holder = '${holder}', lease_expires_at = ${Date.now() + 60_000}
         WHERE id = '${id}'`,
    );
  /** Ends the broker's LISTEN connection on the server's side, as a server restart does. */
  const dropListenConnection = async () => {
    const ended = await h.rows<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN %world_broker_lease%'`,
    );
    expect(ended).toEqual([{ ended: true }]);
  };
  /** Resolves once the broker listens on a new connection (its restore hooks run right after). */
  const listeningAgain = () =>
    eventually(
      async () => {
        const listening = await h.rows(
          `SELECT 1 FROM pg_stat_activity
             WHERE datname = current_database() AND query LIKE 'LISTEN %world_broker_lease%'`,
        );
        return listening.length === 1 ? true : undefined;
      },
      10_000,
      'the LISTEN connection back',
    );

  it('runs a release again when its LISTEN connection comes back: a lost release frees the lease and wakes the waiter; one the next holder built on changes nothing', async () => {
    const held = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId: 'lease-lost', holder: 'a', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    expect(held).toMatchObject({ fence: 1, tookOver: false });
    await expect(
      h.rpc.request(
        'broker.episode.release',
        { episodeId: 'lease-lost', holder: 'a', fence: 1 },
        opts,
      ),
    ).resolves.toEqual({ released: true });
    await loseRelease('lease-lost', 'a');
    const waiting = h.rpc.request(
      'broker.episode.acquire',
      { episodeId: 'lease-lost', holder: 'b', ttlMs: 60_000, waitMs: 30_000 },
      opts,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(await leaseOf('lease-lost')).toEqual({ holder: 'a', fence: '1' });
    await dropListenConnection();
    await expect(waiting).resolves.toMatchObject({ fence: 2, tookOver: false });
    expect(await leaseOf('lease-lost')).toEqual({ holder: 'b', fence: '2' });
    // Running a/1 again once more leaves b's lease alone: the fence moved on.
    await listeningAgain();
    await dropListenConnection();
    await listeningAgain();
    await new Promise((r) => setTimeout(r, 200)); // the restore hook's statement, sent by now
    expect(await leaseOf('lease-lost')).toEqual({ holder: 'b', fence: '2' });
  });

  it('keeps a release to run again for EPISODE_LEASE_TTL_MS, after which its lease has expired anyway', async () => {
    const repo = new EpisodesRepository(h.database);
    const releases = new RecentReleases(repo, new LeaseSignals(h.database));
    const t0 = Date.now();
    expect(await repo.tryAcquire('lease-aged', 'x', 60_000, t0)).toMatchObject({ fence: 1 });
    expect(await repo.release('lease-aged', 'x', 1)).toBe(true);
    releases.track({ episodeId: 'lease-aged', holder: 'x', fence: 1 }, t0);
    await loseRelease('lease-aged', 'x');
    expect(await releases.redo(t0 + EPISODE_LEASE_TTL_MS - 1)).toBe(1);
    expect(await leaseOf('lease-aged')).toEqual({ holder: null, fence: '1' });
    expect(await releases.redo(t0 + EPISODE_LEASE_TTL_MS - 1)).toBe(0);
    await loseRelease('lease-aged', 'x');
    expect(await releases.redo(t0 + EPISODE_LEASE_TTL_MS)).toBe(0);
    expect(await leaseOf('lease-aged')).toEqual({ holder: 'x', fence: '1' });
  });

  it('answers broker.health and refuses an unknown object', async () => {
    await expect(h.rpc.request('broker.health', {}, opts)).resolves.toEqual({
      service: 'broker',
      status: 'ok',
      replica: `it-${mode}`,
    });
    const ref = `sha256:${'9'.repeat(64)}` as const;
    await expect(
      h.rpc.request('broker.object.get', { scope: READ_ALL, ref, payload: false }, opts),
    ).rejects.toEqual(new NotFoundError(`object ${ref} not found`));
  });
});

describe('broker start-up', () => {
  it('refuses to start when the policies directory lies inside the workspace root (world-spec §8.2)', async () => {
    const home = await realpath(await mkdtemp(join(tmpdir(), 'broker-home-')));
    const testDb = await createTestDatabase('broker_startup');
    const database = await openPostgres(testDb.url);
    try {
      await expect(
        startBroker({
          transport: { kind: 'inproc', bus: new InProcessBus() },
          database,
          worldHome: home,
          workspaceRoot: home,
        }),
      ).rejects.toEqual(
        new ConfigError(
          `broker: invalid configuration: the policies directory ${join(home, 'policies')} lies inside the workspace root ${home}`,
        ),
      );
    } finally {
      await database.close();
      await testDb.drop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
