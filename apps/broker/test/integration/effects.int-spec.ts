import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromWireObject, objectJson, refOf } from '@world/canonical';
import {
  BadRequestError,
  LeaseLostError,
  NoHandlerError,
  SessionUnknownError,
  type ReplyOf,
  type RequestOf,
  READ_ALL,
} from '@world/contracts';
import { BROKER_TOOL_REF } from '../../src/handlers/tool-identity.js';
import type { EffectHandler } from '../../src/handlers/registry.js';
import { renderPolicy } from '../../src/policy/render-policy.js';
import { EffectsRepository } from '../../src/effects/effects.repository.js';
import {
  allowedRead,
  executeRequest,
  MODES,
  RPC_TIMEOUT_MS,
  startHarness,
  type Harness,
} from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };

const failing: EffectHandler = {
  ops: ['boom'],
  scopes: ['worktree'],
  async run() {
    throw new Error('the tool crashed');
  },
};

describe.each(MODES)('broker.effect.execute over %s', (_name, mode) => {
  let h: Harness;
  let episode = 0;

  beforeAll(async () => {
    h = await startHarness(mode, { handlers: { 'Test.Fail': failing } });
  });
  afterAll(async () => {
    await h.close();
  });

  /** A fresh episode with a session holding the given grants (textual budget per grant). */
  async function setup(grants: RequestOf<'broker.session.mint'>['grants'], ttlSeconds = 3600) {
    const episodeId = `ep${++episode}`;
    const created = await h.rpc.request(
      'broker.episode.create',
      { episodeId, source: { kind: 'empty' } },
      opts,
    );
    const session = await h.rpc.request(
      'broker.session.mint',
      { episodeId, grants, ttlSeconds },
      opts,
    );
    const lease = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'setup', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    return { episodeId, worktree: created.worktree, session, fence: lease.fence };
  }

  const grant = (effect: string, budget: number, scope = 'worktree') => ({ effect, scope, budget });

  it('runs an allowed read: intent, handler, result, record, outcome, spend 1', async () => {
    const { episodeId, worktree, session, fence } = await setup([grant('Workspace.Read', 5)]);
    await writeFile(join(worktree, 'a.txt'), 'hello\n');
    const reply = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({
        invocationId: `mcp:${episodeId}:ok`,
        credentialId: session.credentialId,
        episodeId,
        fence,
        now: 1_000,
      }),
      opts,
    );
    const policy = renderPolicy({ worktree, timeoutMs: 8000 });
    expect(reply.status).toBe('ok');
    expect(reply.fence).toBe(fence);
    expect(reply.output).toEqual({
      ok: true,
      content: 'hello\n',
      tool: BROKER_TOOL_REF,
      policy_digest: policy.digest,
    });
    const [request, result, record] = reply.objects.map((o) => fromWireObject(o));
    expect(request!.semanticId).toBe('world/effect-request/v1');
    expect(request!.payload.toString()).toBe(
      '{"cost":1,"effect":"Workspace.Read","now":1000,"payload":{"op":"read","path":"a.txt"},"scope":"worktree"}',
    );
    expect(result!.semanticId).toBe('world/effect-result/v1');
    expect(objectJson(result!)).toEqual(reply.output);
    expect(record!.semanticId).toBe('world/effect-record/v1');
    expect(record!.provenance).toBe('host/broker');
    expect(record!.hash).toBe(reply.recordRef);
    expect(objectJson(record!)).toEqual(reply.record);
    expect(reply.record).toEqual({
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      budgetBefore: 5,
      budgetAfter: 4,
      allowed: true,
      failed: false,
      denial: '',
      requestRef: request!.hash,
      resultRef: result!.hash,
    });
    await expect(
      h.rpc.request('broker.effect.byInvocation', { invocationId: `mcp:${episodeId}:ok` }, opts),
    ).resolves.toEqual({
      items: [
        {
          ordinal: 0,
          effect: 'Workspace.Read',
          scope: 'worktree',
          cost: 1,
          status: 'succeeded',
          recordRef: reply.recordRef,
        },
      ],
    });
    const served = await h.rpc.request(
      'broker.object.get',
      { scope: READ_ALL, ref: reply.recordRef, payload: true },
      opts,
    );
    expect(Buffer.from(served.payload!, 'base64').equals(record!.payload)).toBe(true);
    const spend = await h.rows(
      `SELECT effect, scope, spent FROM broker.spend WHERE episode_id = '${episodeId}'`,
    );
    expect(spend.map((r) => ({ ...r, spent: Number(r.spent) }))).toEqual([
      { effect: 'Workspace.Read', scope: 'worktree', spent: 1 },
    ]);
  });

  it('writes the episode policy file (mode 0600, outside the workspace root) whose digest tools report', async () => {
    const { episodeId, worktree } = await setup([grant('Workspace.Read', 1)]);
    const path = join(h.worldHome, 'policies', `${episodeId}.toml`);
    expect(await readFile(path, 'utf8')).toBe(renderPolicy({ worktree, timeoutMs: 8000 }).text);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('counts a handler refusal as spend: status ok, output ok:false, cost 1 (world-spec §4.4 C)', async () => {
    const { episodeId, session, fence } = await setup([grant('Workspace.Read', 5)]);
    const reply = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({
        credentialId: session.credentialId,
        episodeId,
        fence,
        effect: { payload: { op: 'read', path: '/etc/hosts' } },
      }),
      opts,
    );
    expect(reply.status).toBe('ok');
    expect(reply.output).toMatchObject({
      ok: false,
      refused: `read /etc/hosts: path "/etc/hosts" escapes sandbox "${join(h.workspaceRoot, episodeId)}"`,
    });
    expect(reply.record.budgetAfter).toBe(4);
  });

  const denials: Array<
    [
      string,
      RequestOf<'broker.session.mint'>['grants'],
      Partial<RequestOf<'broker.effect.execute'>['effect']>,
      'expire' | 'now',
      number,
    ]
  > = [
    ['denied:effect-name', [grant('Workspace.Write', 5)], {}, 'now', 0],
    ['denied:scope', [grant('Workspace.Read', 5, 'elsewhere')], {}, 'now', 0],
    ['denied:expired', [grant('Workspace.Read', 5)], {}, 'expire', 5],
    ['denied:budget', [grant('Workspace.Read', 0)], {}, 'now', 0],
  ];
  it.each(denials)(
    'denies with %s and writes only its record: no intent, nothing spent',
    async (label, grants, effect, when, before) => {
      const { episodeId, session, fence } = await setup(grants);
      const counts = await h.counts();
      const now = when === 'expire' ? session.expiresAt : session.createdAt;
      const reply = await h.rpc.request(
        'broker.effect.execute',
        executeRequest({
          invocationId: `mcp:${episodeId}:d`,
          credentialId: session.credentialId,
          episodeId,
          fence,
          now,
          effect,
        }),
        opts,
      );
      expect(reply.status).toBe('denied');
      expect(reply.output).toBeNull();
      expect(reply.record).toMatchObject({
        allowed: false,
        failed: false,
        denial: label,
        budgetBefore: before,
        budgetAfter: before,
        resultRef: '',
      });
      expect(reply.objects.map((o) => o.semanticId)).toEqual([
        'world/effect-request/v1',
        'world/effect-record/v1',
      ]);
      expect(await h.counts()).toEqual({
        ...counts,
        objects: counts.objects! + 2,
        effect_records: counts.effect_records! + 1,
      });
      await expect(
        h.rpc.request('broker.effect.byInvocation', { invocationId: `mcp:${episodeId}:d` }, opts),
      ).resolves.toEqual({ items: [] });
    },
  );

  it('records a failing handler as failed: spend stands at 1, result ref empty (incident 2)', async () => {
    const { episodeId, session, fence } = await setup([grant('Test.Fail', 3)]);
    const reply = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({
        invocationId: `mcp:${episodeId}:f`,
        credentialId: session.credentialId,
        episodeId,
        fence,
        effect: { effect: 'Test.Fail', payload: { op: 'boom' } },
      }),
      opts,
    );
    expect(reply.status).toBe('failed');
    expect(reply.output).toBeNull();
    expect(reply.record).toMatchObject({
      allowed: true,
      failed: true,
      denial: '',
      budgetBefore: 3,
      budgetAfter: 2,
      resultRef: '',
    });
    expect(reply.objects.map((o) => o.semanticId)).toEqual([
      'world/effect-request/v1',
      'world/effect-record/v1',
    ]);
    const [spend] = await h.rows<{ spent: string }>(
      `SELECT spent FROM broker.spend WHERE episode_id = '${episodeId}'`,
    );
    expect(Number(spend!.spent)).toBe(1);
    await expect(
      h.rpc.request('broker.effect.byInvocation', { invocationId: `mcp:${episodeId}:f` }, opts),
    ).resolves.toEqual({
      items: [
        {
          ordinal: 0,
          effect: 'Test.Fail',
          scope: 'worktree',
          cost: 1,
          status: 'failed',
          recordRef: reply.recordRef,
        },
      ],
    });
  });

  it('fails an op outside the effect allowlist without touching the file (world-spec §2.6, §8.2)', async () => {
    const { episodeId, worktree, session, fence } = await setup([grant('Workspace.Read', 3)]);
    await writeFile(join(worktree, 'a.txt'), 'keep\n');
    const reply = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({
        credentialId: session.credentialId,
        episodeId,
        fence,
        effect: { payload: { op: 'write', path: 'a.txt', content: 'x' } },
      }),
      opts,
    );
    expect(reply.status).toBe('failed');
    expect(reply.record.budgetAfter).toBe(2);
    expect(await readFile(join(worktree, 'a.txt'), 'utf8')).toBe('keep\n');
  });

  it('refuses an illegal record row with the three-arm CHECK constraint (world-internals §5.2)', async () => {
    const insert = (
      allowed: boolean,
      failed: boolean,
      denial: string,
      before: number,
      after: number,
      result: string,
    ) =>
      h.rows(
        `INSERT INTO broker.effect_records VALUES ('sha256:${refOf(`${allowed}${failed}${denial}${before}${after}${result}`).slice(7)}', 'ep', 'i', 'E', 's', 1, ${before}, ${after}, ${allowed}, ${failed}, '${denial}', 'sha256:r', '${result}')`,
      );
    const illegal: Array<Parameters<typeof insert>> = [
      [false, true, '', 5, 5, ''], // not allowed yet failed
      [false, false, '', 5, 5, ''], // denied without a label
      [false, false, 'denied:other', 5, 5, ''], // unknown label
      [false, false, 'denied:budget', 5, 4, ''], // denial that spent
      [true, false, '', 5, 5, 'sha256:x'], // success that did not spend
      [true, false, '', 5, 4, ''], // success without a result
      [true, true, '', 5, 4, 'sha256:x'], // failure with a result
      [true, true, 'denied:budget', 5, 4, ''], // failure with a label
    ];
    for (const row of illegal) {
      const err = (await insert(...row).catch((e: unknown) => e)) as Error & { cause?: Error };
      expect(err.cause?.message).toBe(
        'new row for relation "effect_records" violates check constraint "effect_records_three_arm_law"',
      );
    }
    await expect(insert(true, false, '', 5, 4, 'sha256:x')).resolves.toBeDefined();
  });

  it('refuses an effect without a handler before writing anything (rule R8)', async () => {
    // Git.Commit is a library-only effect of the reference (world-spec §2.6): no handler here.
    const { episodeId, session } = await setup([grant('Git.Commit', 5)]);
    const counts = await h.counts();
    const [before] = await h.rows<{ f: string }>(
      `SELECT lease_fence AS f FROM broker.episodes WHERE id = '${episodeId}'`,
    );
    const err = await h.rpc
      .request(
        'broker.effect.execute',
        executeRequest({
          credentialId: session.credentialId,
          episodeId,
          acquire: { holder: 'x', ttlMs: 1000, waitMs: 0 },
          effect: { effect: 'Git.Commit', payload: { op: 'commit', message: 'm' } },
        }),
        opts,
      )
      .catch((e: unknown) => e);
    expect(err).toEqual(new NoHandlerError());
    expect((err as Error).message).toBe(
      'transition declares an effect this daemon has no handler for',
    );
    expect(await h.counts()).toEqual(counts);
    const [after] = await h.rows<{ f: string }>(
      `SELECT lease_fence AS f FROM broker.episodes WHERE id = '${episodeId}'`,
    );
    expect(Number(after!.f)).toBe(Number(before!.f));
  });

  it('refuses a revoked, unknown or foreign session with SessionUnknown and writes nothing', async () => {
    const a = await setup([grant('Workspace.Read', 5)]);
    const b = await setup([grant('Workspace.Read', 5)]);
    await h.rpc.request('broker.session.revoke', { credentialId: a.session.credentialId }, opts);
    const counts = await h.counts();
    for (const [credentialId, episodeId, fence] of [
      [a.session.credentialId, a.episodeId, a.fence],
      ['f'.repeat(64), a.episodeId, a.fence],
      [b.session.credentialId, a.episodeId, a.fence],
    ] as const) {
      const err = await h.rpc
        .request('broker.effect.execute', executeRequest({ credentialId, episodeId, fence }), opts)
        .catch((e: unknown) => e);
      expect(err).toEqual(new SessionUnknownError());
    }
    expect(await h.counts()).toEqual(counts);
  });

  it('requires exactly one of fence and acquire', async () => {
    const { episodeId, session, fence } = await setup([grant('Workspace.Read', 5)]);
    const both = executeRequest({
      credentialId: session.credentialId,
      episodeId,
      fence,
      acquire: { holder: 'x', ttlMs: 10, waitMs: 0 },
    });
    const neither = executeRequest({ credentialId: session.credentialId, episodeId });
    for (const request of [both, neither]) {
      await expect(h.rpc.request('broker.effect.execute', request, opts)).rejects.toEqual(
        new BadRequestError('broker.effect.execute: exactly one of fence and acquire is required'),
      );
    }
  });

  it('refuses a stale fence with LeaseLost and writes nothing; an expired lease is taken over and the old fence is then stale', async () => {
    const { episodeId, session, fence } = await setup([grant('Workspace.Read', 5)]);
    await h.rpc.request('broker.episode.release', { episodeId, holder: 'setup', fence }, opts);
    const first = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'a', ttlMs: 1, waitMs: 0 },
      opts,
    );
    expect(first).toMatchObject({ fence: fence + 1, tookOver: false });
    const counts = await h.counts();
    const second = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'b', ttlMs: 60_000, waitMs: 5_000 },
      opts,
    );
    expect(second).toMatchObject({ fence: fence + 2, tookOver: true });
    const err = await h.rpc
      .request(
        'broker.effect.execute',
        executeRequest({ credentialId: session.credentialId, episodeId, fence: first.fence }),
        opts,
      )
      .catch((e: unknown) => e);
    expect(err).toEqual(new LeaseLostError(episodeId, first.fence));
    expect(await h.counts()).toEqual(counts);
    await expect(
      h.rpc.request(
        'broker.episode.renew',
        { episodeId, holder: 'a', fence: first.fence, ttlMs: 1000 },
        opts,
      ),
    ).rejects.toEqual(new LeaseLostError(episodeId, first.fence));
    await expect(
      h.rpc.request('broker.episode.release', { episodeId, holder: 'a', fence: first.fence }, opts),
    ).resolves.toEqual({
      released: false,
    });
    const ok = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({ credentialId: session.credentialId, episodeId, fence: second.fence }),
      opts,
    );
    expect(ok.status).toBe('ok');
  });

  async function invariant(episodeId: string) {
    const [spent] = await h.rows<{ s: string | null }>(
      `SELECT sum(spent) AS s FROM broker.spend WHERE episode_id = '${episodeId}'`,
    );
    const [intents] = await h.rows<{ s: string | null; n: string }>(
      `SELECT sum(cost) AS s, count(*) AS n FROM broker.effect_intents WHERE episode_id = '${episodeId}'`,
    );
    const [ordinals] = await h.rows<{ o: string }>(
      `SELECT string_agg(ordinal::text, ',' ORDER BY ordinal) AS o FROM broker.effect_intents WHERE episode_id = '${episodeId}'`,
    );
    return {
      spent: Number(spent!.s),
      intentCost: Number(intents!.s),
      intents: Number(intents!.n),
      ordinals: ordinals!.o,
    };
  }

  const tally = (replies: Array<ReplyOf<'broker.effect.execute'>>) => ({
    ok: replies.filter((r) => r.status === 'ok').length,
    denied: replies.filter((r) => r.status === 'denied' && r.record.denial === 'denied:budget')
      .length,
  });

  it('allows exactly 5 of 30 concurrent executes queued on the lease (acquire) and denies 25 with denied:budget', async () => {
    const { episodeId, session, fence } = await setup([grant('Workspace.Read', 5)]);
    await h.rpc.request('broker.episode.release', { episodeId, holder: 'setup', fence }, opts);
    const replies = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const reply = await h.rpc.request(
          'broker.effect.execute',
          executeRequest({
            invocationId: `mcp:${episodeId}:c${i}`,
            credentialId: session.credentialId,
            episodeId,
            acquire: { holder: `call-${i}`, ttlMs: 60_000, waitMs: 25_000 },
            effect: { payload: { op: 'read', path: `f${i}.txt` } },
          }),
          opts,
        );
        await h.rpc.request(
          'broker.episode.release',
          { episodeId, holder: `call-${i}`, fence: reply.fence },
          opts,
        );
        return reply;
      }),
    );
    expect(tally(replies)).toEqual({ ok: 5, denied: 25 });
    expect(new Set(replies.map((r) => r.fence)).size).toBe(30);
    expect(await invariant(episodeId)).toEqual({
      spent: 5,
      intentCost: 5,
      intents: 5,
      ordinals: '0,1,2,3,4',
    });
  });

  it('allows exactly 5 of 30 concurrent executes under one pre-held fence and denies 25 with denied:budget', async () => {
    const { episodeId, session, fence } = await setup([grant('Workspace.Read', 5)]);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.rpc.request(
          'broker.effect.execute',
          executeRequest({
            invocationId: `mcp:${episodeId}:p${i}`,
            credentialId: session.credentialId,
            episodeId,
            fence,
            effect: { payload: { op: 'read', path: `f${i}.txt` } },
          }),
          opts,
        ),
      ),
    );
    expect(tally(replies)).toEqual({ ok: 5, denied: 25 });
    expect(await invariant(episodeId)).toEqual({
      spent: 5,
      intentCost: 5,
      intents: 5,
      ordinals: '0,1,2,3,4',
    });
  });

  it("takes a free lease and starts the effect in one statement only while the lease is still free at the fence read (tx1's fast path)", async () => {
    const { episodeId, fence } = await setup([grant('Workspace.Read', 5)]);
    await h.rpc.request('broker.episode.release', { episodeId, holder: 'setup', fence }, opts);
    const effects = new EffectsRepository(h.database);
    const lease = async () =>
      (
        await h.rows<{ holder: string | null; fence: string | number }>(
          `SELECT lease_holder AS holder, lease_fence AS fence FROM broker.episodes WHERE id = '${episodeId}'`,
        )
      ).map((r) => ({ holder: r.holder, fence: Number(r.fence) }))[0];
    const startOf = (n: number) => allowedRead(`mcp:${episodeId}:free${n}`, n);
    const claim = (freeFence: number) => ({
      holder: 'fast',
      ttlMs: 60_000,
      now: Date.now(),
      freeFence,
    });
    expect(await lease()).toEqual({ holder: null, fence });

    // Another call took and released the lease after the read: the fence moved, nothing is written.
    const other = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'other', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    await h.rpc.request(
      'broker.episode.release',
      { episodeId, holder: 'other', fence: other.fence },
      opts,
    );
    const before = await h.counts();
    await expect(effects.beginFree(episodeId, claim(fence), startOf(1))).resolves.toBeNull();
    expect(await h.counts()).toEqual(before);
    expect(await lease()).toEqual({ holder: null, fence: fence + 1 });

    // Free at the fence read: lease, request object, spend and intent in one statement.
    const begun = await effects.beginFree(episodeId, claim(fence + 1), startOf(2));
    expect(begun).toMatchObject({ fence: fence + 2, tookOver: false, ordinal: 0 });
    expect(await h.counts()).toEqual({
      ...before,
      objects: before.objects! + 1,
      effect_intents: before.effect_intents! + 1,
      spend: before.spend! + 1,
      spent: before.spent! + 1,
    });
    expect(await lease()).toEqual({ holder: 'fast', fence: fence + 2 });
    expect(await invariant(episodeId)).toEqual({
      spent: 1,
      intentCost: 1,
      intents: 1,
      ordinals: '0',
    });

    // Held now: nothing is written, the holder keeps it.
    const held = await h.counts();
    await expect(effects.beginFree(episodeId, claim(fence + 2), startOf(3))).resolves.toBeNull();
    expect(await h.counts()).toEqual(held);
    expect(await lease()).toEqual({ holder: 'fast', fence: fence + 2 });
  });

  it('keeps spend across sessions of one episode (world-spec §2.9: a new session does not reset budget)', async () => {
    const { episodeId, session, fence } = await setup([grant('Workspace.Read', 1)]);
    const first = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({ credentialId: session.credentialId, episodeId, fence }),
      opts,
    );
    expect(first.status).toBe('ok');
    const fresh = await h.rpc.request(
      'broker.session.mint',
      { episodeId, grants: [grant('Workspace.Read', 1)], ttlSeconds: 60 },
      opts,
    );
    const second = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({ credentialId: fresh.credentialId, episodeId, fence }),
      opts,
    );
    expect(second.record).toMatchObject({ denial: 'denied:budget', budgetBefore: 0 });
  });
});
