/**
 * A call that had to wait for its episode's lease is granted it only while its planner instance
 * answers its liveness subject (contracts callerSubject; DESIGN.md §2 "Per-episode
 * serialization"): a caller nobody answers for, or one that does not answer in time, is dropped
 * with CallerGoneError before anything is written, and one its planner says was cancelled by its
 * client with CallCancelledError. Real NATS and PostgreSQL; the planner
 * instances here are liveness servers on the broker's bus.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import {
  CallCancelledError,
  CallerGoneError,
  callerSubject,
  type RequestOf,
} from '@world/contracts';
import { startMicroservice, worldMetrics } from '@world/runtime';
import { eventually } from '@world/testing';
import { executeRequest, RPC_TIMEOUT_MS, startHarness, type Harness } from '../support/harness.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const ALIVE = 'a11ce0000000a11c';
const HUNG = 'beef00000000beef';
const GONE = 'dead0000000dead0';
const CANCELLING = 'ca0ce1000000ca0c';

/** A planner instance that answers its liveness with its caller id. */
@Controller()
class AliveController {
  @MessagePattern(callerSubject(ALIVE))
  alive() {
    return { caller: ALIVE };
  }

  /** An instance whose client cancelled every invocation it is asked about. */
  @MessagePattern(callerSubject(CANCELLING))
  cancelling(data: { invocationId?: string }) {
    return { caller: CANCELLING, cancelled: data.invocationId !== undefined };
  }

  /** An instance that takes the question and never answers (a hung process). */
  @MessagePattern(callerSubject(HUNG))
  hung() {
    return new Promise(() => undefined);
  }
}
@Module({ controllers: [AliveController] })
class PlannersModule {}

describe('lease waits ask the waiting call’s planner (NATS and PostgreSQL)', () => {
  let h: Harness;
  let planners: { close(): Promise<void> };
  let episode = 0;

  beforeAll(async () => {
    h = await startHarness('nats');
    planners = await startMicroservice('planner', { module: PlannersModule }, h.transport, {
      drainMs: 0,
    });
  });
  afterAll(async () => {
    await planners?.close();
    await h?.close();
  });

  /** A fresh episode whose lease `other` holds, with a session that may read a.txt. */
  async function held() {
    const episodeId = `live${++episode}`;
    const { worktree } = await h.rpc.request(
      'broker.episode.create',
      { episodeId, source: { kind: 'empty' } },
      opts,
    );
    await writeFile(join(worktree, 'a.txt'), 'hello\n');
    const { credentialId } = await h.rpc.request(
      'broker.session.mint',
      {
        episodeId,
        grants: [{ effect: 'Workspace.Read', scope: 'worktree', budget: 5 }],
        ttlSeconds: 600,
      },
      opts,
    );
    const lease = await h.rpc.request(
      'broker.episode.acquire',
      { episodeId, holder: 'other', ttlMs: 60_000, waitMs: 0 },
      opts,
    );
    const release = () =>
      h.rpc.request(
        'broker.episode.release',
        { episodeId, holder: 'other', fence: lease.fence },
        opts,
      );
    return { episodeId, credentialId, fence: lease.fence, release };
  }

  const execute = (episodeId: string, credentialId: string, caller?: string) => {
    const acquire: RequestOf<'broker.effect.execute'>['acquire'] = {
      holder: 'queued',
      ttlMs: 60_000,
      waitMs: 20_000,
      ...(caller !== undefined && { caller }),
    };
    return h.rpc.request(
      'broker.effect.execute',
      executeRequest({ invocationId: `mcp:${episodeId}:q`, credentialId, episodeId, acquire }),
      opts,
    );
  };

  const leaseOf = async (episodeId: string) =>
    (
      await h.rows<{ holder: string | null; fence: string }>(
        `SELECT lease_holder AS holder, lease_fence::text AS fence FROM broker.episodes WHERE id = '${episodeId}'`,
      )
    )[0];

  /** Calls of this process's broker that found a lease held (world_lease_waits_total). */
  const leaseWaits = async () =>
    (await worldMetrics().leaseWaits.get()).values.reduce((n, v) => n + v.value, 0);

  /** Starts an execute and resolves once it waits for the held lease (its claim found it held). */
  async function queued(episodeId: string, credentialId: string, caller?: string) {
    const waits = await leaseWaits();
    const reply = execute(episodeId, credentialId, caller);
    reply.catch(() => undefined);
    await eventually(
      async () => ((await leaseWaits()) === waits + 1 ? true : undefined),
      10_000,
      'the execute waiting for the lease',
    );
    return { reply };
  }

  it.each<[string, string | undefined]>([
    ['a caller that answers', ALIVE],
    ['a request that names no caller', undefined],
  ])('grants the lease after the wait to %s', async (_row, caller) => {
    const { episodeId, credentialId, fence, release } = await held();
    const { reply } = await queued(episodeId, credentialId, caller);
    await release();
    await expect(reply).resolves.toMatchObject({ status: 'ok', fence: fence + 1 });
  });

  it.each<[string, string]>([
    ['nobody answers for (a SIGKILLed planner: no responders)', GONE],
    ['does not answer in time (a hung planner)', HUNG],
  ])(
    'drops a waiting call whose planner %s: nothing written, nothing spent',
    async (_row, caller) => {
      const { episodeId, credentialId, fence, release } = await held();
      const before = await h.counts();
      const { reply } = await queued(episodeId, credentialId, caller);
      await release();
      await expect(reply).rejects.toEqual(new CallerGoneError(episodeId, caller));
      expect(await h.counts()).toEqual(before);
      expect(await leaseOf(episodeId)).toEqual({ holder: null, fence: String(fence) });
    },
  );

  it('drops a waiting call its planner says was cancelled: CallCancelled, nothing written', async () => {
    const { episodeId, credentialId, fence, release } = await held();
    const before = await h.counts();
    const { reply } = await queued(episodeId, credentialId, CANCELLING);
    await release();
    await expect(reply).rejects.toEqual(new CallCancelledError(`mcp:${episodeId}:q`));
    expect(await h.counts()).toEqual(before);
    expect(await leaseOf(episodeId)).toEqual({ holder: null, fence: String(fence) });
  });

  it('never asks a call that did not wait: the free lease is taken at once', async () => {
    const { episodeId, credentialId, fence, release } = await held();
    await release();
    await expect(execute(episodeId, credentialId, GONE)).resolves.toMatchObject({
      status: 'ok',
      fence: fence + 1,
    });
  });
});
