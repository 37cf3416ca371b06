/**
 * `broker.episode.spend` (the workbench's Episodes page, DESIGN.md §5a): per grant its budget,
 * spend and what is left; the episode's lease holder; its indeterminate intents by the recovery
 * rule; a session reads only its own episode (contracts VISIBILITY `spend`).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError, READ_ALL, type RequestOf } from '@world/contracts';
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

describe.each(MODES)('broker.episode.spend over %s', (_name, mode) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(mode);
  });
  afterAll(async () => {
    await h.close();
  });

  async function setup(episodeId: string, grants: RequestOf<'broker.session.mint'>['grants']) {
    const created = await h.rpc.request(
      'broker.episode.create',
      { episodeId, source: { kind: 'empty' } },
      opts,
    );
    const session = await h.rpc.request(
      'broker.session.mint',
      { episodeId, grants, ttlSeconds: 3600 },
      opts,
    );
    const lease = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'planner-a:mcp:x', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    return { worktree: created.worktree, session, lease };
  }

  it('shows budget, spent and left per grant, the lease holder, then an intent left without outcome as indeterminate', async () => {
    const episodeId = 'spend-ep1';
    const { worktree, session, lease } = await setup(episodeId, [
      { effect: 'Workspace.Read', scope: 'worktree', budget: 5 },
      { effect: 'Workspace.Write', scope: 'worktree', budget: 0 },
    ]);
    await writeFile(join(worktree, 'a.txt'), 'hello\n');
    const reply = await h.rpc.request(
      'broker.effect.execute',
      executeRequest({
        invocationId: `mcp:${episodeId}:ok`,
        credentialId: session.credentialId,
        episodeId,
        fence: lease.fence,
      }),
      opts,
    );
    expect(reply.status).toBe('ok');
    const grant = (effect: string, budget: number, spent: number, left: number) => ({
      credentialId: session.credentialId,
      effect,
      scope: 'worktree',
      budget,
      spent,
      left,
      expiresAt: session.expiresAt,
    });
    expect(
      await h.rpc.request('broker.episode.spend', { episodeId, scope: READ_ALL }, opts),
    ).toEqual({
      episodeId,
      grants: [grant('Workspace.Read', 5, 1, 4), grant('Workspace.Write', 0, 0, 0)],
      lease: { holder: 'planner-a:mcp:x', fence: lease.fence, expiresAt: lease.expiresAt },
      indeterminate: [],
    });

    // tx1 of a call whose replica then dies: its intent has no outcome. While its lease is held
    // and it is the latest intent, a live call could still finish it: not indeterminate.
    const effects = new EffectsRepository(h.database);
    await effects.begin(episodeId, { fence: lease.fence }, () =>
      allowedRead(`mcp:${episodeId}:lost`, Date.now()),
    );
    const held = await h.rpc.request(
      'broker.episode.spend',
      { episodeId, scope: { kind: 'episode', episodeId } },
      opts,
    );
    expect(held.grants.map((g) => [g.effect, g.spent, g.left])).toEqual([
      ['Workspace.Read', 2, 3],
      ['Workspace.Write', 0, 0],
    ]);
    expect(held.indeterminate).toEqual([]);

    // the lease freed: no live replica can write its outcome any more
    await h.rpc.request(
      'broker.episode.release',
      { episodeId, holder: 'planner-a:mcp:x', fence: lease.fence },
      opts,
    );
    const freed = await h.rpc.request('broker.episode.spend', { episodeId, scope: READ_ALL }, opts);
    expect(freed.lease).toBeNull();
    expect(freed.indeterminate).toEqual([
      {
        invocationId: `mcp:${episodeId}:lost`,
        episodeId,
        ordinal: 1,
        effect: 'Workspace.Read',
        scope: 'worktree',
      },
    ]);
  });

  it('answers NotFound to a session of another episode and for an episode that does not exist', async () => {
    await setup('spend-ep2', [{ effect: 'Workspace.Read', scope: 'worktree', budget: 1 }]);
    await expect(
      h.rpc.request(
        'broker.episode.spend',
        { episodeId: 'spend-ep2', scope: { kind: 'episode', episodeId: 'spend-other' } },
        opts,
      ),
    ).rejects.toEqual(new NotFoundError('episode "spend-ep2" not found'));
    await expect(
      h.rpc.request('broker.episode.spend', { episodeId: 'spend-none', scope: READ_ALL }, opts),
    ).rejects.toEqual(new NotFoundError('episode "spend-none" not found'));
  });
});
