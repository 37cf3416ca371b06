/**
 * Review stress (9443e07): two broker replicas on one database and one NATS queue group, many
 * concurrent executes of one episode taking a free lease (tx1's fast path when the read finds it
 * free, else the locking path), some releasing, some leaving a short lease to expire (take-over),
 * grants on two scopes. Budgets must be spent exactly, spend = Σ intent costs, ordinals dense,
 * every fence distinct.
 */
import type { ReplyOf } from '@world/contracts';
import { startBroker, type RunningBroker } from '../../src/boot.js';
import { EffectsRepository } from '../../src/effects/effects.repository.js';
import { executeRequest, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

/** beginFree statements sent and those that took the lease, over the whole file */
const fast = { sent: 0, landed: 0 };
const original = EffectsRepository.prototype.beginFree;
EffectsRepository.prototype.beginFree = async function (this: EffectsRepository, ...args) {
  fast.sent += 1;
  const out = await original.apply(this, args);
  if (out !== null) fast.landed += 1;
  return out;
} as typeof original;

const opts = { timeoutMs: RPC_TIMEOUT_MS };

describe('tx1 fast path across two broker replicas (NATS and PostgreSQL)', () => {
  let h: Harness;
  let second: RunningBroker;

  beforeAll(async () => {
    h = await startHarness('nats');
    second = await startBroker({
      transport: h.transport,
      database: h.database,
      worldHome: h.worldHome,
      workspaceRoot: h.workspaceRoot,
      replica: 'it-second',
    });
  });
  afterAll(async () => {
    EffectsRepository.prototype.beginFree = original;
    await second?.close();
    await h?.close();
  });

  it.each([1, 2, 3])(
    'round %i: exact budgets per scope, spend = Σ intents, dense ordinals, distinct fences',
    async (round) => {
      const episodeId = `stress${round}`;
      await h.rpc.request('broker.episode.create', { episodeId, source: { kind: 'empty' } }, opts);
      const session = await h.rpc.request(
        'broker.session.mint',
        {
          episodeId,
          grants: [
            { effect: 'Workspace.Read', scope: 'worktree', budget: 7 },
            { effect: 'Workspace.Read', scope: 'other', budget: 4 },
          ],
          ttlSeconds: 3600,
        },
        opts,
      );
      const N = 40;
      const replies: Array<ReplyOf<'broker.effect.execute'> & { scope: string }> =
        await Promise.all(
          Array.from({ length: N }, async (_, i) => {
            const scope = i % 3 === 0 ? 'other' : 'worktree';
            const lapse = i % 7 === 0; // leaves its lease to expire: the next caller takes it over
            await new Promise((r) => setTimeout(r, (i * 37) % 20));
            const reply = await h.rpc.request(
              'broker.effect.execute',
              executeRequest({
                invocationId: `mcp:${episodeId}:c${i}`,
                credentialId: session.credentialId,
                episodeId,
                acquire: { holder: `call-${i}`, ttlMs: lapse ? 30 : 60_000, waitMs: 25_000 },
                effect: { scope, payload: { op: 'read', path: `f${i}.txt` } },
              }),
              opts,
            );
            if (!lapse) {
              await h.rpc.request(
                'broker.episode.release',
                { episodeId, holder: `call-${i}`, fence: reply.fence },
                opts,
              );
            }
            return { ...reply, scope };
          }),
        );
      const spentOf = (scope: string) =>
        replies.filter((r) => r.scope === scope && r.status !== 'denied').length;
      expect(spentOf('worktree')).toBe(7);
      expect(spentOf('other')).toBe(4);
      expect(new Set(replies.map((r) => r.fence)).size).toBe(N);
      for (const r of replies) {
        if (r.status === 'denied') expect(r.record.denial).toBe('denied:budget');
        else expect(r.record.budgetAfter).toBe(r.record.budgetBefore - 1);
      }
      // budgetBefore values of each scope's allowed calls are exactly budget, budget-1, …, 1
      for (const [scope, budget] of [
        ['worktree', 7],
        ['other', 4],
      ] as const) {
        const befores = replies
          .filter((r) => r.scope === scope && r.status !== 'denied')
          .map((r) => r.record.budgetBefore)
          .sort((a, b) => b - a);
        expect(befores).toEqual(Array.from({ length: budget }, (_, k) => budget - k));
      }
      const [inv] = await h.rows<{ spent: string; cost: string; n: string; o: string }>(
        `SELECT (SELECT sum(spent) FROM broker.spend WHERE episode_id = '${episodeId}')::text AS spent,
              (SELECT sum(cost) FROM broker.effect_intents WHERE episode_id = '${episodeId}')::text AS cost,
              (SELECT count(*) FROM broker.effect_intents WHERE episode_id = '${episodeId}')::text AS n,
              (SELECT string_agg(ordinal::text, ',' ORDER BY ordinal) FROM broker.effect_intents
                WHERE episode_id = '${episodeId}') AS o`,
      );
      expect(inv).toEqual({
        spent: '11',
        cost: '11',
        n: '11',
        o: Array.from({ length: 11 }, (_, k) => k).join(','),
      });
    },
  );

  it('exercised the one-statement tx1 both ways: some took the lease, some found it moved', () => {
    expect(fast.landed).toBeGreaterThan(0);
    expect(fast.sent).toBeGreaterThan(fast.landed);
  });
});
