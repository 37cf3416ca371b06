/**
 * The statements one `broker.effect.execute` sends to PostgreSQL, per way through tx1 (world-
 * internals §5; DESIGN.md §2): counted on the wire by node-postgres's Client.query, so a change
 * that adds a round trip, a transaction or a statement to the hot path shows here. Named
 * statements are listed by name, transaction control by its text.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { RequestOf } from '@world/contracts';
import { executeRequest, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };

/** Statement labels sent while `recording` is set (named statements and BEGIN/COMMIT/ROLLBACK). */
let recording: string[] | undefined;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string; name?: string };
  const text = typeof first === 'string' ? first : (first.text ?? '');
  const name = typeof first === 'string' ? undefined : first.name;
  const control = /^(BEGIN|COMMIT|ROLLBACK)\b/.exec(text)?.[1];
  if (recording !== undefined && (name !== undefined || control !== undefined))
    recording.push(name ?? control!);
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof clientQuery;

describe('statements per broker.effect.execute (real PostgreSQL)', () => {
  let h: Harness;
  let episode = 0;

  beforeAll(async () => {
    h = await startHarness('nats');
  });
  afterAll(async () => {
    pg.Client.prototype.query = clientQuery;
    await h.close();
  });

  async function setup(budget: number) {
    const episodeId = `st${++episode}`;
    const { worktree } = await h.rpc.request(
      'broker.episode.create',
      { episodeId, source: { kind: 'empty' } },
      opts,
    );
    await writeFile(join(worktree, 'a.txt'), 'hello\n');
    const session = await h.rpc.request(
      'broker.session.mint',
      {
        episodeId,
        grants: [{ effect: 'Workspace.Read', scope: 'worktree', budget }],
        ttlSeconds: 600,
      },
      opts,
    );
    return { episodeId, credentialId: session.credentialId };
  }

  /** The statements one execute sent, with its reply status. */
  async function recorded(request: RequestOf<'broker.effect.execute'>) {
    recording = [];
    try {
      const reply = await h.rpc.request('broker.effect.execute', request, opts);
      return { status: reply.status, statements: recording };
    } finally {
      recording = undefined;
    }
  }

  const acquire = (holder: string) => ({ holder, ttlMs: 60_000, waitMs: 10_000 });

  it('free lease, allowed: the read, the one-statement tx1, the one-statement tx2', async () => {
    const { episodeId, credentialId } = await setup(5);
    await expect(
      recorded(executeRequest({ episodeId, credentialId, acquire: acquire('c1') })),
    ).resolves.toEqual({
      status: 'ok',
      statements: ['broker_session_find_with_episode', 'broker_tx1_free_1', 'broker_tx2_2'],
    });
  });

  it('free lease, denied: the read, then tx1 on the locking path with the denial', async () => {
    const { episodeId, credentialId } = await setup(0);
    await expect(
      recorded(executeRequest({ episodeId, credentialId, acquire: acquire('c1') })),
    ).resolves.toEqual({
      status: 'denied',
      statements: [
        'broker_session_find_with_episode',
        'BEGIN',
        'broker_lease_claim',
        'broker_spend_of_episode',
        'broker_tx1_denied_2',
        'COMMIT',
      ],
    });
  });

  it('free lease, an op outside the allowlist fails: tx2 writes the record without a result', async () => {
    const { episodeId, credentialId } = await setup(5);
    const request = executeRequest({ episodeId, credentialId, acquire: acquire('c1') });
    request.effect.payload = { op: 'unlisted', path: 'a.txt' };
    await expect(recorded(request)).resolves.toEqual({
      status: 'failed',
      statements: ['broker_session_find_with_episode', 'broker_tx1_free_1', 'broker_tx2_1'],
    });
  });

  it('under a fence: the read, tx1 locking the row, tx2', async () => {
    const { episodeId, credentialId } = await setup(5);
    const { fence } = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'c0', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    await expect(recorded(executeRequest({ episodeId, credentialId, fence }))).resolves.toEqual({
      status: 'ok',
      statements: [
        'broker_session_find_with_episode',
        'BEGIN',
        'broker_episode_lock',
        'broker_spend_of_episode',
        'broker_tx1_allowed_1',
        'COMMIT',
        'broker_tx2_2',
      ],
    });
  });

  it('held lease, then released: one claim that finds it held, the claim that takes it, tx2', async () => {
    const { episodeId, credentialId } = await setup(5);
    const held = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'c0', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    recording = [];
    const reply = h.rpc.request(
      'broker.effect.execute',
      executeRequest({ episodeId, credentialId, acquire: acquire('c1') }),
      opts,
    );
    // Released once the execute found the lease held (its first claim's COMMIT was sent).
    while (recording.filter((s) => s === 'COMMIT').length < 1)
      await new Promise((r) => setTimeout(r, 5));
    await h.rpc.request(
      'broker.episode.release',
      { episodeId, holder: 'c0', fence: held.fence },
      opts,
    );
    const status = (await reply).status;
    const statements = recording.filter((s) => s !== 'broker_lease_release');
    recording = undefined;
    expect({ status, statements }).toEqual({
      status: 'ok',
      statements: [
        'broker_session_find_with_episode',
        'BEGIN',
        'broker_lease_claim',
        'COMMIT',
        'BEGIN',
        'broker_lease_claim',
        'broker_spend_of_episode',
        'broker_tx1_allowed_1',
        'COMMIT',
        'broker_tx2_2',
      ],
    });
  });
});
