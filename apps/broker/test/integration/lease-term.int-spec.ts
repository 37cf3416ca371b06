/**
 * A broker whose tx1 came back after its own lease had lapsed (here: tx1 waited on a table lock
 * longer than the lease's ttl, as it does for a broker SIGSTOPped or starved between sending tx1
 * and reading its answer) must not start the handler: another call may hold the episode by then
 * and its newer effect would be overwritten by the stale one (DESIGN.md §2 "Per-episode
 * serialization"; world-internals §5.2). The effect is recorded as failed: intent, outcome
 * `failed`, spend 1, the file untouched. The same holds past the request's `startBy` (its
 * caller stopped waiting): read after it, the request is refused and writes nothing; tx1
 * finished after it, the effect is recorded as failed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { RequestOf } from '@world/contracts';
import { executeRequest, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const TTL_MS = 1_000;

describe('a broker whose lease lapsed before its handler could start (NATS and PostgreSQL)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('nats');
  });
  afterAll(async () => {
    await h.close();
  });

  async function episodeWithWrites(episodeId: string) {
    const created = await h.rpc.request(
      'broker.episode.create',
      { episodeId, source: { kind: 'empty' } },
      opts,
    );
    const grants: RequestOf<'broker.session.mint'>['grants'] = [
      { effect: 'Workspace.Write', scope: 'worktree', budget: 5 },
    ];
    const session = await h.rpc.request(
      'broker.session.mint',
      { episodeId, grants, ttlSeconds: 3600 },
      opts,
    );
    return { worktree: created.worktree, credentialId: session.credentialId };
  }

  const write = (
    episodeId: string,
    credentialId: string,
    task: string,
    path: string,
    over: { ttlMs?: number; startBy?: number } = {},
  ) =>
    h.rpc.request(
      'broker.effect.execute',
      executeRequest({
        invocationId: `mcp:${episodeId}:${task}`,
        credentialId,
        episodeId,
        acquire: { holder: `planner-${task}`, ttlMs: over.ttlMs ?? TTL_MS, waitMs: 10_000 },
        ...(over.startBy === undefined ? {} : { startBy: over.startBy }),
        effect: {
          effect: 'Workspace.Write',
          payload: { op: 'write', path, content: 'stale\n' },
        },
      }),
      opts,
    );

  /**
   * Sends `send()` while another connection holds `broker.effect_intents` (EXCLUSIVE conflicts
   * with the ROW EXCLUSIVE lock tx1's intent INSERT takes: tx1 waits), frees it after `holdMs`,
   * and returns the reply.
   */
  async function withTx1Held<T>(holdMs: number, send: () => Promise<T>): Promise<T> {
    const blocker = new pg.Client({ connectionString: h.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE broker.effect_intents IN EXCLUSIVE MODE');
      const reply = send();
      await new Promise((r) => setTimeout(r, holdMs));
      await blocker.query('COMMIT');
      return await reply;
    } finally {
      await blocker.end();
    }
  }

  it('records the effect as failed and never runs it: intent, outcome failed, spend 1, no file', async () => {
    const episodeId = 'lapsed';
    const { worktree, credentialId } = await episodeWithWrites(episodeId);
    const answered = await withTx1Held(TTL_MS + 500, () =>
      write(episodeId, credentialId, 't1', 'late.txt'),
    );
    expect([answered.status, answered.record.failed, answered.record.allowed]).toEqual([
      'failed',
      true,
      true,
    ]);
    expect(existsSync(join(worktree, 'late.txt'))).toBe(false);
    expect(
      await h.rows(
        `SELECT i.ordinal::int AS ordinal, o.status FROM broker.effect_intents i JOIN broker.effect_outcomes o USING (episode_id, ordinal) WHERE i.episode_id = '${episodeId}'`,
      ),
    ).toEqual([{ ordinal: 0, status: 'failed' }]);
    const spend = await h.rows<{ spent: string | number }>(
      `SELECT spent FROM broker.spend WHERE episode_id = '${episodeId}'`,
    );
    expect(spend.map((r) => Number(r.spent))).toEqual([1]);
  });

  it('runs the same write when tx1 answers within the ttl (status ok, the file written)', async () => {
    const episodeId = 'held';
    const { worktree, credentialId } = await episodeWithWrites(episodeId);
    const answered = await write(episodeId, credentialId, 't1', 'late.txt');
    expect(answered.status).toBe('ok');
    expect(existsSync(join(worktree, 'late.txt'))).toBe(true);
  });

  it("refuses a request read after its caller's startBy with Timeout and writes nothing", async () => {
    const episodeId = 'read-late';
    const { worktree, credentialId } = await episodeWithWrites(episodeId);
    const before = await h.counts();
    const refused = await write(episodeId, credentialId, 't1', 'late.txt', {
      startBy: Date.now() - 1,
    }).catch((e: unknown) => e);
    expect([(refused as Error).constructor.name, (refused as Error).message]).toEqual([
      'DeadlineExceededError',
      'broker.effect.execute was read after its caller stopped waiting; the effect did not run',
    ]);
    expect(await h.counts()).toEqual(before);
    expect(existsSync(join(worktree, 'late.txt'))).toBe(false);
  });

  it('records the effect as failed when tx1 finished after startBy (the lease still held)', async () => {
    const episodeId = 'started-late';
    const { worktree, credentialId } = await episodeWithWrites(episodeId);
    const answered = await withTx1Held(800, () =>
      write(episodeId, credentialId, 't1', 'late.txt', {
        ttlMs: 60_000,
        startBy: Date.now() + 300,
      }),
    );
    expect([answered.status, answered.record.failed]).toEqual(['failed', true]);
    expect(existsSync(join(worktree, 'late.txt'))).toBe(false);
    expect(
      await h.rows(
        `SELECT o.status FROM broker.effect_intents i JOIN broker.effect_outcomes o USING (episode_id, ordinal) WHERE i.episode_id = '${episodeId}'`,
      ),
    ).toEqual([{ status: 'failed' }]);
  });
});
