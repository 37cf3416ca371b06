import { entryHash, worldRef } from '@world/canonical';
import {
  BadRequestError,
  DuplicateInvocationError,
  parseRequest,
  type ReplyOf,
  type RequestOf,
  READ_ALL,
} from '@world/contracts';
import { connectRpc, type RpcClient, type RunningService } from '@world/runtime';
import { startLedger } from '../../src/index.js';
import type { HeadPosition, ToolAppendWrite } from '../../src/commit/chain.js';
import { CommitInvocation } from '../../src/commit/commit-invocation.js';
import { OWN_TRANSACTION } from '../../src/commit/commit-strategies.js';
import { CommitRepository, type CommitTx } from '../../src/commit/commit.repository.js';
import { CommittedEvents } from '../../src/commit/committed-events.js';
import { prepareCommit } from '../../src/commit/tool-commit.js';
import { MODES, RPC_TIMEOUT_MS, commitLone, toolCall, type ModeSetup } from '../support.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };

type Reply = ReplyOf<'ledger.commit'>;
type Settled = { reply: Reply } | { error: unknown };

/** A request as the controller hands it on: parsed. */
const parsed = (request: RequestOf<'ledger.commit'>) => parseRequest('ledger.commit', request);

const settle = (promise: Promise<Reply>): Promise<Settled> =>
  promise.then(
    (reply) => ({ reply }),
    (error: unknown) => ({ error }),
  );

describe.each(MODES)('group commit over %s (concurrent ledger.commit)', (_mode, setupMode) => {
  let mode: ModeSetup;
  let ledger: RunningService;
  let client: RpcClient;
  let repository: CommitRepository;
  /** transactions the group ran, and whether the next one fails after its work */
  let transactions: number;
  let failNext: boolean;
  /** one-statement commits sent (commit-strategies.ts ONE_STATEMENT), and those that landed */
  let fastSent: number;
  let fastLanded: number;
  let events: Array<RequestOf<'ledger.committed'>>;
  let announced: CommittedEvents;

  /** A fresh use case: its own queue, on the counting repository. */
  const useCase = () => new CommitInvocation(repository, announced);
  /** A commit in its own transaction. */
  const commitOwn = (invocation: CommitInvocation, request: RequestOf<'ledger.commit'>) =>
    commitLone(invocation, prepareCommit(parsed(request)), OWN_TRANSACTION);

  const headIndex = async () => (await client.request('ledger.head', {}, opts)).entryIndex!;

  beforeAll(async () => {
    mode = await setupMode();
    ledger = await startLedger({
      transport: mode.transport,
      database: mode.database,
      replica: 'ledger-group-test',
    });
    client = await connectRpc(mode.transport, 'ledger-group-test-client');
    // Counts the transactions and one-statement commits and, on demand, rolls a transaction
    // back after its work ran. A fresh repository: no head seen yet, so its first commit cannot
    // take the one-statement path.
    class CountingRepository extends CommitRepository {
      override transaction<T>(work: (t: CommitTx) => Promise<T>): Promise<T> {
        transactions += 1;
        const fail = failNext;
        failNext = false;
        return super.transaction(async (t) => {
          const result = await work(t);
          if (fail) throw new Error('injected failure after the group wrote');
          return result;
        });
      }

      override async appendOnHead(expected: HeadPosition, write: ToolAppendWrite) {
        fastSent += 1;
        const landed = await super.appendOnHead(expected, write);
        if (landed) fastLanded += 1;
        return landed;
      }
    }
    repository = new CountingRepository(mode.database);
  });

  beforeEach(() => {
    transactions = 0;
    failNext = false;
    fastSent = 0;
    fastLanded = 0;
    events = [];
    announced = new CommittedEvents({
      emit: (_subject: string, event: RequestOf<'ledger.committed'>) => events.push(event),
    } as never);
  });

  afterAll(async () => {
    await client?.close();
    await ledger?.close();
    await mode?.teardown();
  });

  it('commits the calls that wait behind an append in one transaction, each with its own entry, world, journal row and event', async () => {
    const group = useCase();
    const start = await headIndex();
    const calls = Array.from({ length: 6 }, (_, i) => toolCall(`mcp:ep-group:t${i}`, { g: i }));
    const replies = await Promise.all(calls.map((c) => group.execute(parsed(c.request))));
    // The first commits alone (in a transaction: this replica has seen no head yet); the five
    // that arrived meanwhile share the next transaction.
    expect(transactions).toBe(2);
    expect(fastSent).toBe(0);
    expect(replies.map((r) => r.entryIndex)).toEqual(calls.map((_, i) => start + 1 + i));
    expect(await headIndex()).toBe(start + calls.length);
    for (const [i, reply] of replies.entries()) {
      const entry = await client.request('ledger.log.entry', { index: reply.entryIndex }, opts);
      const world = await client.request('ledger.world.get', { ref: reply.worldRef }, opts);
      expect(entryHash(entry.header, entry.transitionRef)).toBe(reply.entryHash);
      expect(entry.transitionRef).toBe(calls[i]!.record.hash);
      expect(entry.header.prevEntryHash).toBe(reply.prevEntryHash);
      if (i > 0) expect(reply.prevEntryHash).toBe(replies[i - 1]!.entryHash);
      expect(worldRef(world)).toBe(reply.worldRef);
      expect(world).toEqual({
        ref: reply.worldRef,
        revision: reply.entryIndex,
        stateRoot: calls[i]!.output.hash,
        logHead: reply.entryHash,
      });
      expect(reply).toEqual({
        entryIndex: start + 1 + i,
        entryHash: entry.entryHash,
        prevEntryHash: entry.header.prevEntryHash,
        worldRef: world.ref,
        revision: start + 1 + i,
        replayed: false,
      });
      await expect(
        client.request(
          'ledger.receipt.get',
          { scope: READ_ALL, invocationId: calls[i]!.request.invocationId },
          opts,
        ),
      ).resolves.toEqual({
        invocationId: calls[i]!.request.invocationId,
        state: 'resolved',
        resultRef: reply.worldRef,
      });
    }
    expect(events).toEqual(
      replies.map((r, i) => ({
        entryIndex: r.entryIndex,
        entryHash: r.entryHash,
        worldRef: r.worldRef,
        writtenBy: 'coordinator:mcp',
        invocationId: calls[i]!.request.invocationId,
      })),
    );
  });

  it('answers each member of a group on its own: a refusal or a resend leaves the others committed', async () => {
    const group = useCase();
    const used = toolCall('mcp:ep-gmix:used', { used: 1 });
    await commitOwn(group, used.request);
    const done = toolCall('mcp:ep-gmix:done', { done: 1 });
    const first = await commitOwn(group, done.request);
    const start = await headIndex();
    transactions = 0;
    fastSent = 0;
    events = [];

    const lead = toolCall('mcp:ep-gmix:lead', { lead: 1 });
    const ok1 = toolCall('mcp:ep-gmix:ok1', { ok: 1 }, { shared: 'state' });
    const missing = toolCall('mcp:ep-gmix:missing', { missing: 1 }, { never: 'stored' });
    const other = toolCall('mcp:ep-gmix:used', { used: 2 });
    // Its state root is carried only by ok1, an earlier member of the same group.
    const leaning = toolCall('mcp:ep-gmix:ok2', { ok: 2 }, { shared: 'state' });
    const outcomes = await Promise.all(
      [
        lead.request,
        ok1.request,
        { ...missing.request, objects: [missing.request.objects[0]!, missing.request.objects[2]!] },
        other.request,
        done.request,
        { ...leaning.request, objects: [leaning.request.objects[0]!, leaning.request.objects[2]!] },
      ].map((request) => settle(group.execute(parsed(request)))),
    );
    // The lead commits alone in one statement on the head seen; the rest share a transaction.
    expect(fastSent).toBe(1);
    expect(fastLanded).toBe(1);
    expect(transactions).toBe(1);
    const [leadOut, ok1Out, missingOut, otherOut, resendOut, leaningOut] = outcomes;
    expect(leadOut).toMatchObject({ reply: { entryIndex: start + 1, replayed: false } });
    expect(ok1Out).toMatchObject({ reply: { entryIndex: start + 2, replayed: false } });
    expect(missingOut).toEqual({
      error: new BadRequestError(
        `stateRoot: object ${missing.output.hash} is neither carried by the commit nor stored`,
      ),
    });
    expect((missingOut as { error: unknown }).error).toBeInstanceOf(BadRequestError);
    expect((otherOut as { error: unknown }).error).toBeInstanceOf(DuplicateInvocationError);
    expect((otherOut as { error: Error }).error.message).toBe(
      'invocation id "mcp:ep-gmix:used" was already used for different content',
    );
    expect(resendOut).toEqual({ reply: { ...first, replayed: true } });
    expect(leaningOut).toMatchObject({
      reply: {
        entryIndex: start + 3,
        prevEntryHash: (ok1Out as { reply: Reply }).reply.entryHash,
        replayed: false,
      },
    });
    expect(await headIndex()).toBe(start + 3);
    await expect(
      client.request(
        'ledger.receipt.get',
        { scope: READ_ALL, invocationId: 'mcp:ep-gmix:missing' },
        opts,
      ),
    ).resolves.toEqual({ invocationId: 'mcp:ep-gmix:missing', state: 'not-started' });
    expect(events.map((e) => e.invocationId)).toEqual([
      'mcp:ep-gmix:lead',
      'mcp:ep-gmix:ok1',
      'mcp:ep-gmix:ok2',
    ]);
  });

  it('answers a resend sent while its first commit is pending with that answer, sending nothing of its own', async () => {
    // A planner retries a commit that did not answer in time: the retry must
    // not queue a second transaction behind the same lock.
    const group = useCase();
    const start = await headIndex();
    const lead = toolCall('mcp:ep-gresend:lead', { lead: 1 });
    const call = toolCall('mcp:ep-gresend:t1', { resend: 1 });
    const [, firstOut, againOut] = await Promise.all(
      [lead.request, call.request, call.request].map((r) => settle(group.execute(parsed(r)))),
    );
    const first = (firstOut as { reply: Reply }).reply;
    expect(first).toMatchObject({ entryIndex: start + 2, replayed: false });
    expect(againOut).toEqual({ reply: first });
    // Two lone commits, each in one statement; the resend shared the second's.
    expect(fastSent).toBe(2);
    expect(fastLanded).toBe(2);
    expect(transactions).toBe(0);
    // Once answered, a resend is a commit of its own again: its transaction replays it.
    await expect(group.execute(parsed(call.request))).resolves.toEqual({
      ...first,
      replayed: true,
    });
    expect(transactions).toBe(1);
    expect(await headIndex()).toBe(start + 2);
  });

  it('commits the members one by one when the group transaction fails, leaving nothing of it', async () => {
    const group = useCase();
    const start = await headIndex();
    const calls = Array.from({ length: 4 }, (_, i) => toolCall(`mcp:ep-gfail:t${i}`, { f: i }));
    const missing = toolCall('mcp:ep-gfail:missing', { missing: 1 }, { never: 'stored' });
    // The lead commits alone (in one statement, sent at once); the group after it is rolled back
    // after it wrote.
    const lead = group.execute(parsed(calls[0]!.request));
    failNext = true;
    const rest = [
      calls[1]!.request,
      { ...missing.request, objects: [missing.request.objects[0]!, missing.request.objects[2]!] },
      calls[2]!.request,
      calls[3]!.request,
    ].map((request) => settle(group.execute(parsed(request))));
    await lead;
    const outcomes = await Promise.all(rest);
    // the failed group + one transaction per member (the lead took one statement)
    expect(fastLanded).toBe(1);
    expect(transactions).toBe(5);
    expect(outcomes[0]).toMatchObject({ reply: { entryIndex: start + 2, replayed: false } });
    expect(outcomes[1]).toEqual({
      error: new BadRequestError(
        `stateRoot: object ${missing.output.hash} is neither carried by the commit nor stored`,
      ),
    });
    expect(outcomes[2]).toMatchObject({ reply: { entryIndex: start + 3, replayed: false } });
    expect(outcomes[3]).toMatchObject({ reply: { entryIndex: start + 4, replayed: false } });
    expect(await headIndex()).toBe(start + 4);
    const { items } = await client.request(
      'ledger.log.range',
      { from: start + 1, limit: 10 },
      opts,
    );
    expect(items.map((e) => e.transitionRef)).toEqual(calls.map((c) => c.record.hash));
    expect(events.map((e) => e.entryIndex)).toEqual([start + 1, start + 2, start + 3, start + 4]);
  });
});
