import { createHash } from 'node:crypto';
import { BadRequestError, NotFoundError, credentialIdOf, parseBearer } from '@world/contracts';
import { eventually } from '@world/testing';
import { classifySession } from '../../src/sessions/resolve-session.js';
import { SessionsRepository } from '../../src/sessions/sessions.repository.js';
import { MODES, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const grants = [
  { effect: 'Workspace.Read', scope: 'worktree', budget: 50 },
  { effect: 'Workspace.Write', scope: 'worktree', budget: 0 },
];

describe.each(MODES)('sessions over %s', (_name, mode) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(mode);
    for (const episodeId of ['ep', 'listed']) {
      await h.rpc.request('broker.episode.create', { episodeId, source: { kind: 'empty' } }, opts);
    }
  });
  afterAll(async () => {
    await h.close();
  });

  it('mints a 64-hex token once, stores only its sha256, and lets grants expire with the session (incident 19)', async () => {
    const minted = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'ep', grants, ttlSeconds: 3600 },
      opts,
    );
    expect(minted.token).toMatch(/^[0-9a-f]{64}$/);
    expect(minted.credentialId).toBe(createHash('sha256').update(minted.token).digest('hex'));
    expect(minted.expiresAt - minted.createdAt).toBe(3_600_000);
    expect(minted.grants).toEqual(grants.map((g) => ({ ...g, expiresAt: minted.expiresAt })));
    const resolved = await h.rpc.request(
      'broker.session.resolve',
      { credentialId: minted.credentialId },
      opts,
    );
    expect(resolved).toEqual({
      status: 'ok',
      session: {
        credentialId: minted.credentialId,
        episodeId: 'ep',
        grants: minted.grants,
        createdAt: minted.createdAt,
        expiresAt: minted.expiresAt,
      },
    });
  });

  it('never stores the token in any table', async () => {
    const minted = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'ep', grants, ttlSeconds: 60 },
      opts,
    );
    const tables = await h.rows<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'broker' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'effect_intents',
      'effect_outcomes',
      'effect_records',
      'episodes',
      'grants',
      'objects',
      'sessions',
      'spend',
      'workbench_tickets',
    ]);
    let scanned = 0;
    for (const { table_name } of tables) {
      const rows = await h.rows<{ r: string }>(`SELECT t::text AS r FROM broker.${table_name} t`);
      scanned += rows.length;
      for (const row of rows) expect(row.r).not.toContain(minted.token);
    }
    const sessions = await h.rows<{ r: string }>('SELECT t::text AS r FROM broker.sessions t');
    expect(sessions.some((row) => row.r.includes(minted.credentialId))).toBe(true);
    expect(scanned).toBeGreaterThanOrEqual(3);
  });

  it('tells apart the resolve outcomes: ok, unknown, revoked, expired (and absent, malformed for direct callers)', async () => {
    const live = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'ep', grants, ttlSeconds: 3600 },
      opts,
    );
    const short = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'ep', grants, ttlSeconds: 1 },
      opts,
    );
    const gone = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'ep', grants, ttlSeconds: 3600 },
      opts,
    );
    await expect(
      h.rpc.request('broker.session.revoke', { credentialId: gone.credentialId }, opts),
    ).resolves.toEqual({ revoked: true });
    const resolve = (credentialId: string) =>
      h.rpc.request('broker.session.resolve', { credentialId }, opts);
    await expect(resolve(live.credentialId)).resolves.toMatchObject({ status: 'ok' });
    await expect(resolve('a'.repeat(64))).resolves.toEqual({ status: 'unknown' });
    await expect(resolve(gone.credentialId)).resolves.toEqual({ status: 'revoked' });
    await eventually(
      async () => ((await resolve(short.credentialId)).status === 'expired' ? true : undefined),
      5_000,
      'expiry',
    );

    const now = live.createdAt;
    const header = (token: string) => `Bearer ${token}`;
    // What a direct caller of the broker's store does with an Authorization header: absent and
    // malformed are decided before a credential id exists (world-spec §6.1), the rest by the
    // stored session at `now`.
    const resolveSession = async (
      database: Harness['database'],
      value: string | undefined,
      at: number,
    ) => {
      const parsed = parseBearer(value);
      if (parsed.kind !== 'token') return { status: parsed.kind };
      const row = await new SessionsRepository(database).find(credentialIdOf(parsed.token));
      return classifySession(row, at);
    };
    await expect(resolveSession(h.database, undefined, now)).resolves.toEqual({ status: 'absent' });
    await expect(resolveSession(h.database, '', now)).resolves.toEqual({ status: 'absent' });
    await expect(resolveSession(h.database, 'Bearer xyz', now)).resolves.toEqual({
      status: 'malformed',
    });
    await expect(resolveSession(h.database, `Basic ${live.token}`, now)).resolves.toEqual({
      status: 'malformed',
    });
    await expect(resolveSession(h.database, header('b'.repeat(64)), now)).resolves.toEqual({
      status: 'unknown',
    });
    await expect(resolveSession(h.database, header(gone.token), now)).resolves.toEqual({
      status: 'revoked',
    });
    await expect(resolveSession(h.database, header(live.token), live.expiresAt)).resolves.toEqual({
      status: 'expired',
    });
    await expect(resolveSession(h.database, `bearer ${live.token}`, now)).resolves.toMatchObject({
      status: 'ok',
      session: { credentialId: credentialIdOf(live.token), episodeId: 'ep' },
    });
  });

  it('revokes once, emits broker.session.revoked, and answers revoked:false for an unknown id', async () => {
    const minted = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'ep', grants, ttlSeconds: 60 },
      opts,
    );
    const seen: string[] = [];
    const off = h.rpc.subscribe('broker.session.revoked', (event) => seen.push(event.credentialId));
    try {
      await h.rpc.ping();
      await expect(
        h.rpc.request('broker.session.revoke', { credentialId: minted.credentialId }, opts),
      ).resolves.toEqual({ revoked: true });
      await eventually(() => (seen.length > 0 ? true : undefined), 5_000, 'the revocation event');
      expect(seen).toEqual([minted.credentialId]);
      await expect(
        h.rpc.request('broker.session.revoke', { credentialId: 'c'.repeat(64) }, opts),
      ).resolves.toEqual({ revoked: false });
    } finally {
      off();
    }
  });

  it('lists sessions of an episode newest first with liveness', async () => {
    const a = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'listed', grants, ttlSeconds: 60 },
      opts,
    );
    const b = await h.rpc.request(
      'broker.session.mint',
      { episodeId: 'listed', grants, ttlSeconds: 60 },
      opts,
    );
    await h.rpc.request('broker.session.revoke', { credentialId: a.credentialId }, opts);
    const { items } = await h.rpc.request('broker.session.list', { episodeId: 'listed' }, opts);
    const byId = new Map(items.map((i) => [i.credentialId, i]));
    expect(items).toHaveLength(2);
    expect(byId.get(b.credentialId)).toMatchObject({
      live: true,
      revokedAt: null,
      episodeId: 'listed',
      grants: b.grants,
    });
    expect(byId.get(a.credentialId)).toMatchObject({ live: false, episodeId: 'listed' });
    expect(typeof byId.get(a.credentialId)!.revokedAt).toBe('number');
    expect(items[0]!.createdAt).toBeGreaterThanOrEqual(items[1]!.createdAt);
  });

  it('refuses a mint without grants as a bad request and stores nothing', async () => {
    const [before] = await h.rows<{ n: string }>('SELECT count(*) AS n FROM broker.sessions');
    await expect(
      h.rpc.request('broker.session.mint', { episodeId: 'ep', grants: [], ttlSeconds: 60 }, opts),
    ).rejects.toBeInstanceOf(BadRequestError);
    const [after] = await h.rows<{ n: string }>('SELECT count(*) AS n FROM broker.sessions');
    expect(Number(after!.n)).toBe(Number(before!.n));
  });

  it('refuses a mint for an episode that was never created and stores nothing', async () => {
    const [before] = await h.rows<{ n: string }>('SELECT count(*) AS n FROM broker.sessions');
    await expect(
      h.rpc.request(
        'broker.session.mint',
        { episodeId: 'no-such-episode', grants, ttlSeconds: 60 },
        opts,
      ),
    ).rejects.toEqual(
      new NotFoundError(
        'episode "no-such-episode" does not exist; create it first (world episode create no-such-episode)',
      ),
    );
    const [after] = await h.rows<{ n: string }>('SELECT count(*) AS n FROM broker.sessions');
    expect(Number(after!.n)).toBe(Number(before!.n));
  });
});
