import { count, eq, sql } from 'drizzle-orm';
import {
  encodeBase64,
  entryHash,
  makeJsonObject,
  refOf,
  toWireObject,
  worldRef,
  ZERO_REF,
  type LogEntry,
  type Ref,
} from '@world/canonical';
import {
  BadRequestError,
  ClaimGivenUpError,
  DuplicateInvocationError,
  HeadConflictError,
  NotFoundError,
  PAGE_MAX,
  WorldError,
  type ReplyOf,
  type RequestOf,
  READ_ALL,
} from '@world/contracts';
import { connectRpc, type RpcClient, type RunningService } from '@world/runtime';
import { eventually } from '@world/testing';
import { startLedger } from '../../src/index.js';
import { genesis } from '../../src/genesis/genesis.js';
import { CommitRepository } from '../../src/commit/commit.repository.js';
import { commitHashOf, type RestCommitRequest } from '../../src/commit/chain.js';
import { commitObjects, logEntries, objects as objectsTable } from '../../src/db/schema.js';
import {
  MODES,
  RPC_TIMEOUT_MS,
  restCommit,
  toolCall,
  type HeadView,
  type ModeSetup,
} from '../support.js';

/** Concurrency of the append test: 8 clients × 25 commits = 200 entries. */
const CLIENTS = 8;
const COMMITS_PER_CLIENT = 25;
/** A claim that lapses at once. */
const LAPSING_TTL_MS = 1;
/** A claim that outlives the test. */
const CLAIM_TTL_MS = 60_000;

const G = genesis();
const opts = { timeoutMs: RPC_TIMEOUT_MS };

async function refusal(promise: Promise<unknown>): Promise<WorldError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome))
    throw new Error(`expected a refusal, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(WorldError);
  return outcome.error as WorldError;
}

describe.each(MODES)('ledger over %s', (_mode, setupMode) => {
  let mode: ModeSetup;
  let ledger: RunningService;
  let client: RpcClient;

  const head = async (): Promise<HeadView> => {
    const reply = await client.request('ledger.head', {}, opts);
    return {
      worldRef: reply.worldRef!,
      entryIndex: reply.entryIndex!,
      entryHash: reply.world!.logHead,
      revision: reply.world!.revision,
    };
  };
  const logLength = async () => (await head()).entryIndex + 1;
  const commit = (request: RequestOf<'ledger.commit'>) =>
    client.request('ledger.commit', request, opts);
  const rest = (request: RequestOf<'ledger.restCommit'>) =>
    client.request('ledger.restCommit', request, opts);
  const receipt = (invocationId: string) =>
    client.request('ledger.receipt.get', { scope: READ_ALL, invocationId }, opts);
  const begin = (
    invocationId: string,
    requestHash: string,
    ttlMs = CLAIM_TTL_MS,
    reclaim?: boolean,
  ) =>
    client.request(
      'ledger.invocation.begin',
      { invocationId, requestHash, ttlMs, ...(reclaim === undefined ? {} : { reclaim }) },
      opts,
    );
  const getInvocation = (invocationId: string) =>
    client.request('ledger.invocation.get', { invocationId }, opts);

  beforeAll(async () => {
    mode = await setupMode();
    ledger = await startLedger({
      transport: mode.transport,
      database: mode.database,
      replica: 'ledger-test',
    });
    client = await connectRpc(mode.transport, 'ledger-test-client');
  });

  afterAll(async () => {
    await client?.close();
    await ledger?.close();
    await mode?.teardown();
  });

  describe('genesis (DESIGN.md §7.3)', () => {
    it('selects the genesis world at entry 0 on first start', async () => {
      await expect(client.request('ledger.head', {}, opts)).resolves.toEqual({
        worldRef: G.world.ref,
        world: G.world,
        entryIndex: 0,
      });
      await expect(client.request('ledger.log.entry', { index: 0 }, opts)).resolves.toEqual(
        G.entry,
      );
      await expect(client.request('ledger.world.get', { ref: G.world.ref }, opts)).resolves.toEqual(
        G.world,
      );
    });

    it('stores the genesis object and publishes the epoch registry head', async () => {
      await expect(
        client.request(
          'ledger.object.get',
          { scope: READ_ALL, ref: G.object.hash, payload: true },
          opts,
        ),
      ).resolves.toEqual(toWireObject(G.object));
      await expect(
        client.request('ledger.registry.get', { name: 'world/epoch-registry/v1' }, opts),
      ).resolves.toEqual({
        name: 'world/epoch-registry/v1',
        head: G.epochRegistry.hash,
      });
      const epochs = await client.request(
        'ledger.object.get',
        { scope: READ_ALL, ref: G.epochRegistry.hash, payload: true },
        opts,
      );
      expect(Buffer.from(epochs.payload!, 'base64').toString('utf8')).toBe(
        '{"epochs":[{"epoch":1,"release":"world-ts/0.1"}]}',
      );
    });
  });

  it('answers health with its replica', async () => {
    await expect(client.request('ledger.health', {}, opts)).resolves.toEqual({
      service: 'ledger',
      status: 'ok',
      replica: 'ledger-test',
    });
  });

  describe('ledger.commit (DESIGN.md §2, §7.1–7.2)', () => {
    it('appends 200 commits from 8 concurrent clients as a dense, hash-linked log', async () => {
      const start = await head();
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, (_, i) =>
          connectRpc(mode.transport, `ledger-test-client-${i}`),
        ),
      );
      let replies: Array<ReplyOf<'ledger.commit'>>;
      try {
        replies = (
          await Promise.all(
            clients.map(async (c, i) => {
              const mine: Array<ReplyOf<'ledger.commit'>> = [];
              for (let n = 0; n < COMMITS_PER_CLIENT; n++) {
                // Every commit carries the same output object: membership must still record each carrier.
                const call = toolCall(`mcp:ep${i}:t${n}`, { client: i, n });
                mine.push(await c.request('ledger.commit', call.request, opts));
              }
              return mine;
            }),
          )
        ).flat();
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
      const total = CLIENTS * COMMITS_PER_CLIENT;
      expect(replies.every((r) => r.replayed === false)).toBe(true);
      expect(replies.map((r) => r.entryIndex).sort((a, b) => a - b)).toEqual(
        Array.from({ length: total }, (_, i) => start.entryIndex + 1 + i),
      );

      const { items } = await client.request(
        'ledger.log.range',
        { from: 0, limit: PAGE_MAX },
        opts,
      );
      expect(items.map((e) => e.header.entryIndex)).toEqual(
        Array.from({ length: start.entryIndex + 1 + total }, (_, i) => i),
      );
      items.forEach((entry, i) => {
        expect(entryHash(entry.header, entry.transitionRef)).toBe(entry.entryHash);
        if (i > 0) expect(entry.header.prevEntryHash).toBe(items[i - 1]!.entryHash);
      });
      const worlds = await Promise.all(
        replies.map((reply) => client.request('ledger.world.get', { ref: reply.worldRef }, opts)),
      );
      replies.forEach((reply, i) => {
        const entry = items[reply.entryIndex]!;
        const world = worlds[i]!;
        expect(reply.entryHash).toBe(entry.entryHash);
        expect(reply.prevEntryHash).toBe(entry.header.prevEntryHash);
        expect(worldRef(world)).toBe(reply.worldRef);
        expect(world.logHead).toBe(entry.entryHash);
        expect(world.revision).toBe(reply.entryIndex);
        expect(reply.revision).toBe(reply.entryIndex);
      });
      const end = await head();
      expect(end.entryIndex).toBe(start.entryIndex + total);

      const membership = await mode.database.db
        .select({ entryIndex: commitObjects.entryIndex, carried: count() })
        .from(commitObjects)
        .where(sql`${commitObjects.entryIndex} > ${start.entryIndex}`)
        .groupBy(commitObjects.entryIndex);
      expect(membership).toHaveLength(total);
      expect(membership.every((m) => m.carried === 3)).toBe(true);
      const shared = toolCall('mcp:ep0:t0', {}).output.hash;
      const [carriers] = await mode.database.db
        .select({ n: count() })
        .from(commitObjects)
        .where(eq(commitObjects.objectRef, shared));
      expect(carriers!.n).toBe(total);
    });

    it('answers a re-sent commit with its first result, replayed, and adds nothing', async () => {
      const call = toolCall('a2a:ep-replay:task-1', { replay: 1 });
      const first = await commit(call.request);
      const length = await logLength();
      await expect(commit(call.request)).resolves.toEqual({ ...first, replayed: true });
      expect(await logLength()).toBe(length);
    });

    it('refuses the same invocation id with different content as DuplicateInvocation', async () => {
      await commit(toolCall('a2a:ep-dup:task-1', { v: 1 }).request);
      const length = await logLength();
      const err = await refusal(commit(toolCall('a2a:ep-dup:task-1', { v: 2 }).request));
      expect(err).toBeInstanceOf(DuplicateInvocationError);
      expect(err.message).toBe(
        'invocation id "a2a:ep-dup:task-1" was already used for different content',
      );
      expect(err.details()).toEqual({ invocationId: 'a2a:ep-dup:task-1' });
      expect(await logLength()).toBe(length);
    });

    it('broadcasts ledger.committed after the entry lands', async () => {
      const seen: Array<{ entryIndex: number; invocationId: string | null }> = [];
      const off = client.subscribe('ledger.committed', (event) => seen.push(event));
      try {
        await client.ping();
        const reply = await commit(toolCall('mcp:ep-event:t1', { event: 1 }).request);
        const event = await eventually(
          () => seen.find((e) => e.invocationId === 'mcp:ep-event:t1'),
          5_000,
          'the event',
        );
        expect(event).toEqual({
          entryIndex: reply.entryIndex,
          entryHash: reply.entryHash,
          worldRef: reply.worldRef,
          writtenBy: 'coordinator:mcp',
          invocationId: 'mcp:ep-event:t1',
        });
      } finally {
        off();
      }
    });

    it('refuses a tampered object naming objects[i], and writes nothing', async () => {
      const call = toolCall('mcp:ep-tamper:t1', { tamper: 1 });
      const forged = {
        ...call.request.objects[1]!,
        payload: Buffer.from('{"ok":false}').toString('base64'),
      };
      const before = await head();
      const err = await refusal(
        commit({
          ...call.request,
          objects: [call.request.objects[0]!, forged, call.request.objects[2]!],
        }),
      );
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(
        `objects[1]: object hash ${call.output.hash} does not match its payload (sha256 ${refOf('{"ok":false}')})`,
      );
      expect(await head()).toEqual(before);
      await expect(receipt('mcp:ep-tamper:t1')).resolves.toEqual({
        invocationId: 'mcp:ep-tamper:t1',
        state: 'not-started',
      });
      await expect(
        client.request(
          'ledger.object.get',
          { scope: READ_ALL, ref: call.input.hash, payload: false },
          opts,
        ),
      ).rejects.toEqual(new NotFoundError('object not found'));
    });

    it('refuses a stateRoot that is neither carried nor stored', async () => {
      const call = toolCall('mcp:ep-missing:t1', { missing: 1 }, { never: 'stored' });
      const before = await head();
      const err = await refusal(
        commit({ ...call.request, objects: [call.request.objects[0]!, call.request.objects[2]!] }),
      );
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(
        `stateRoot: object ${call.output.hash} is neither carried by the commit nor stored`,
      );
      expect(await head()).toEqual(before);
    });

    it('accepts refs already stored without carrying them again', async () => {
      const call = toolCall('mcp:ep-stored:t1', { stored: 1 });
      await commit(call.request);
      const again = toolCall('mcp:ep-stored:t2', { stored: 1 });
      const reply = await commit({
        ...again.request,
        transitionRef: call.record.hash,
        objects: [],
      });
      const entry = await client.request('ledger.log.entry', { index: reply.entryIndex }, opts);
      expect(entry.transitionRef).toBe(call.record.hash);
    });

    it.each<[string, Partial<RequestOf<'ledger.commit'>>, string]>([
      [
        'a zero transitionFn',
        { transitionFn: ZERO_REF },
        'ledger.commit: transitionFn: ref is the zero ref',
      ],
      [
        'a malformed stateRoot',
        { stateRoot: 'sha256:xyz' as Ref },
        'ledger.commit: stateRoot: ref digest must be 64 hex characters',
      ],
      [
        'an invocation id outside a2a:/mcp:',
        { invocationId: 'rest:x' },
        'invocationId must be a2a:<episode>:<task> or mcp:<episode>:<task>, got "rest:x"',
      ],
    ])('refuses %s naming the field, and writes nothing', async (_case, change, message) => {
      const before = await head();
      const err = await refusal(
        commit({ ...toolCall('mcp:ep-bad:t1', { bad: 1 }).request, ...change }),
      );
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(message);
      expect(await head()).toEqual(before);
    });
  });

  describe('ledger.restCommit (world-spec §5.10, DESIGN.md §7.1–7.2, §7.5)', () => {
    it('appends a REST commit that extends the selected head', async () => {
      const before = await head();
      const request = restCommit(before, 'rest-plain');
      await expect(rest(request)).resolves.toEqual({ selectedHead: request.nextWorld.ref });
      const after = await head();
      expect(after).toEqual({
        worldRef: request.nextWorld.ref,
        entryIndex: before.entryIndex + 1,
        entryHash: request.entry.entryHash,
        revision: before.revision + 1,
      });
      await expect(
        client.request('ledger.log.entry', { index: after.entryIndex }, opts),
      ).resolves.toEqual(request.entry);
    });

    it('refuses a stale observedHead as HeadConflict carrying both heads, and writes nothing', async () => {
      const before = await head();
      const stale = restCommit(before, 'rest-stale', 'rest:stale-1');
      await rest(restCommit(before, 'rest-winner'));
      const current = await head();
      const err = await refusal(rest(stale));
      expect(err).toBeInstanceOf(HeadConflictError);
      expect(err.details()).toEqual({
        observedHead: before.worldRef,
        selectedHead: current.worldRef,
      });
      expect(await head()).toEqual(current);
      await expect(receipt('rest:stale-1')).resolves.toEqual({
        invocationId: 'rest:stale-1',
        state: 'not-started',
      });
    });

    it('refuses the empty observedHead after genesis as HeadConflict', async () => {
      const current = await head();
      const err = await refusal(rest({ ...restCommit(current, 'rest-empty'), observedHead: '' }));
      expect(err).toBeInstanceOf(HeadConflictError);
      expect(err.details()).toEqual({ observedHead: '', selectedHead: current.worldRef });
    });

    type Mutation = (
      c: RequestOf<'ledger.restCommit'>,
      h: HeadView,
    ) => [RequestOf<'ledger.restCommit'>, string];
    const laws: Array<[string, Mutation]> = [
      [
        'density (entryIndex = head + 1)',
        (c, h) => [
          {
            ...c,
            entry: { ...c.entry, header: { ...c.entry.header, entryIndex: h.entryIndex + 5 } },
          },
          `entry.header.entryIndex must be ${h.entryIndex + 1} (the selected head's entry index + 1), got ${h.entryIndex + 5}`,
        ],
      ],
      [
        'linkage (prevEntryHash = head entry hash)',
        (c, h) => [
          {
            ...c,
            entry: { ...c.entry, header: { ...c.entry.header, prevEntryHash: refOf('elsewhere') } },
          },
          `entry.header.prevEntryHash must be ${h.entryHash} (the selected head's entry hash), got ${refOf('elsewhere')}`,
        ],
      ],
      [
        'entry hash recomputation',
        (c) => [
          { ...c, entry: { ...c.entry, entryHash: refOf('forged entry') } },
          `entry.entryHash must be ${c.entry.entryHash} (sha256 of the canonical entry), got ${refOf('forged entry')}`,
        ],
      ],
      [
        'logHead = entry hash',
        (c) => [
          { ...c, nextWorld: { ...c.nextWorld, logHead: refOf('other head') } },
          `nextWorld.logHead must be ${c.entry.entryHash} (the entry's hash), got ${refOf('other head')}`,
        ],
      ],
      [
        'revision = head revision + 1',
        (c, h) => [
          { ...c, nextWorld: { ...c.nextWorld, revision: h.revision + 3 } },
          `nextWorld.revision must be ${h.revision + 1} (the selected head's revision + 1), got ${h.revision + 3}`,
        ],
      ],
      [
        'world ref recomputation',
        (c) => [
          { ...c, nextWorld: { ...c.nextWorld, ref: refOf('forged world') } },
          `nextWorld.ref must be ${c.nextWorld.ref} (sha256 of the canonical world), got ${refOf('forged world')}`,
        ],
      ],
      [
        'a tampered object (DESIGN.md §7.5)',
        (c) => {
          const forged = { ...c.objects[0]!, payload: Buffer.from('tampered').toString('base64') };
          return [
            { ...c, objects: [forged, c.objects[1]!] },
            `objects[0]: object hash ${c.objects[0]!.hash} does not match its payload (sha256 ${refOf('tampered')})`,
          ];
        },
      ],
      [
        'an unresolvable stateRoot',
        (c) => [
          { ...c, objects: [c.objects[1]!] },
          `nextWorld.stateRoot: object ${c.objects[0]!.hash} is neither carried by the commit nor stored`,
        ],
      ],
      [
        'a zero prevEntryHash (incident 1)',
        (c) => [
          { ...c, entry: { ...c.entry, header: { ...c.entry.header, prevEntryHash: ZERO_REF } } },
          'ledger.restCommit: entry.header.prevEntryHash: ref is the zero ref',
        ],
      ],
      [
        'a malformed nextWorld.logHead',
        (c) => [
          { ...c, nextWorld: { ...c.nextWorld, logHead: 'sha256:XYZ' as Ref } },
          'ledger.restCommit: nextWorld.logHead: ref digest must be 64 hex characters',
        ],
      ],
      [
        'a malformed observedHead',
        (c) => [
          { ...c, observedHead: 'sha256:' + 'A'.repeat(64) },
          'observedHead: digest must be lowercase hex',
        ],
      ],
      [
        'an invocation id outside rest:',
        (c) => [
          { ...c, invocationId: 'a2a:ep1:t1' },
          'invocationId must be rest:<id> with 1-128 characters of [A-Za-z0-9._:-] after the prefix, got "a2a:ep1:t1"',
        ],
      ],
    ];

    it.each(laws)(
      'refuses a commit breaking %s as BadRequest and writes nothing',
      async (_law, mutate) => {
        const before = await head();
        const id = `rest:law-${refOf(_law).slice(7, 19)}`;
        const [request, message] = mutate(restCommit(before, `law ${_law}`, id), before);
        const err = await refusal(rest(request));
        expect(err).toBeInstanceOf(BadRequestError);
        expect(err.message).toBe(message);
        expect(await head()).toEqual(before);
        await expect(receipt(id)).resolves.toEqual({ invocationId: id, state: 'not-started' });
        for (const object of request.objects) {
          await expect(
            client.request(
              'ledger.object.get',
              { scope: READ_ALL, ref: object.hash, payload: false },
              opts,
            ),
          ).rejects.toEqual(new NotFoundError('object not found'));
        }
      },
    );

    it('answers a resend under the same id with the same reply and no new entry', async () => {
      const request = restCommit(await head(), 'rest-idem', 'rest:idem-1');
      const first = await rest(request);
      const length = await logLength();
      await expect(rest(request)).resolves.toEqual(first);
      expect(await logLength()).toBe(length);
      await expect(receipt('rest:idem-1')).resolves.toEqual({
        invocationId: 'rest:idem-1',
        state: 'resolved',
        resultRef: request.nextWorld.ref,
      });
    });

    it('refuses a different commit under a used id, and writes nothing', async () => {
      await rest(restCommit(await head(), 'rest-used', 'rest:used-1'));
      const before = await head();
      const err = await refusal(rest(restCommit(before, 'rest-used-other', 'rest:used-1')));
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(
        'invocation id "rest:used-1" was already used for a different commit',
      );
      expect(await head()).toEqual(before);
    });
  });

  describe('receipts (world-internals §5.3 GetReceipt law)', () => {
    it('reports not-started for an id never journaled', async () => {
      await expect(receipt('rest:never')).resolves.toEqual({
        invocationId: 'rest:never',
        state: 'not-started',
      });
    });

    it('reports indeterminate for a journaled intent whose commit never ran, and resolved once it lands', async () => {
      const request = restCommit(await head(), 'rest-intent', 'rest:intent-1');
      const repository = new CommitRepository(mode.database);
      // The intent step alone, as a crash between the two transactions would leave it.
      await repository.transaction((t) =>
        t.insertRestIntent('rest:intent-1', commitHashOf(request as RestCommitRequest)),
      );
      await expect(receipt('rest:intent-1')).resolves.toEqual({
        invocationId: 'rest:intent-1',
        state: 'indeterminate',
      });
      await expect(rest(request)).resolves.toEqual({ selectedHead: request.nextWorld.ref });
      await expect(receipt('rest:intent-1')).resolves.toEqual({
        invocationId: 'rest:intent-1',
        state: 'resolved',
        resultRef: request.nextWorld.ref,
      });
    });

    it('resolves a tool call with its world ref', async () => {
      const reply = await commit(toolCall('a2a:ep-receipt:t1', { r: 1 }).request);
      await expect(receipt('a2a:ep-receipt:t1')).resolves.toEqual({
        invocationId: 'a2a:ep-receipt:t1',
        state: 'resolved',
        resultRef: reply.worldRef,
      });
    });
  });

  describe('idempotent invocations (DESIGN.md §7.4)', () => {
    const HASH = refOf('request').slice(7);
    const OTHER = refOf('other request').slice(7);
    const CLAIMED = { state: 'claimed', claimToken: expect.stringMatching(/^[0-9a-f]{32}$/) };
    /** Claims an id and returns its claim token. */
    const claim = async (id: string, ttlMs = CLAIM_TTL_MS, reclaim?: boolean) => {
      const reply = await begin(id, HASH, ttlMs, reclaim);
      expect(reply).toEqual(CLAIMED);
      return (reply as { claimToken: string }).claimToken;
    };
    const end = (invocationId: string, reason: 'uncertain' | 'abandoned', claimToken?: string) =>
      client.request(
        'ledger.invocation.end',
        { invocationId, reason, ...(claimToken === undefined ? {} : { claimToken }) },
        opts,
      );

    it('claims a fresh id, then reports in-flight, mismatch, and the read-only view', async () => {
      const id = 'a2a:ep-claim:t1';
      await expect(getInvocation(id)).resolves.toEqual({ state: 'none' });
      await claim(id);
      await expect(begin(id, HASH)).resolves.toEqual({ state: 'in-flight' });
      await expect(begin(id, HASH, CLAIM_TTL_MS, true)).resolves.toEqual({ state: 'in-flight' });
      await expect(begin(id, OTHER)).resolves.toEqual({ state: 'mismatch' });
      await expect(getInvocation(id)).resolves.toEqual({ state: 'in-flight' });
      await expect(receipt(id)).resolves.toEqual({ invocationId: id, state: 'indeterminate' });
    });

    it('ends a claim with its reason, and reclaims it only with reclaim', async () => {
      const id = 'a2a:ep-end:t1';
      const token = await claim(id);
      await expect(end(id, 'uncertain', 'f'.repeat(32))).resolves.toEqual({ ended: false });
      await expect(end(id, 'uncertain', token)).resolves.toEqual({ ended: true });
      await expect(end(id, 'abandoned')).resolves.toEqual({ ended: false });
      await expect(getInvocation(id)).resolves.toEqual({ state: 'ended', reason: 'uncertain' });
      await expect(begin(id, HASH)).resolves.toEqual({ state: 'ended', reason: 'uncertain' });
      await expect(begin(id, OTHER, CLAIM_TTL_MS, true)).resolves.toEqual({ state: 'mismatch' });
      const again = await claim(id, CLAIM_TTL_MS, true);
      expect(again).not.toBe(token);
      await expect(getInvocation(id)).resolves.toEqual({ state: 'in-flight' });
      // The first attempt's end no longer touches the claim a resend took over.
      await expect(end(id, 'uncertain', token)).resolves.toEqual({ ended: false });
      await expect(getInvocation(id)).resolves.toEqual({ state: 'in-flight' });
    });

    it('reports a lapsed claim as ended:lapsed, mismatch first, and reclaims it', async () => {
      const id = 'a2a:ep-lapse:t1';
      await claim(id, LAPSING_TTL_MS);
      await eventually(
        async () => ((await getInvocation(id)).state === 'ended' ? true : undefined),
        5_000,
        'the claim to lapse',
      );
      await expect(getInvocation(id)).resolves.toEqual({ state: 'ended', reason: 'lapsed' });
      await expect(begin(id, HASH)).resolves.toEqual({ state: 'ended', reason: 'lapsed' });
      await expect(begin(id, OTHER)).resolves.toEqual({ state: 'mismatch' });
      await claim(id, CLAIM_TTL_MS, true);
      await expect(begin(id, HASH)).resolves.toEqual({ state: 'in-flight' });
    });

    it('binds a claim on commit and answers later begins with the committed output bytes', async () => {
      const id = 'a2a:ep-bind:t1';
      const claimToken = await claim(id);
      const call = toolCall(id, { bind: 1 }, { answer: 42, world: { note: 'exact bytes' } });
      const reply = await commit({ ...call.request, claimToken });
      const committed = {
        state: 'committed',
        entryIndex: reply.entryIndex,
        worldRef: reply.worldRef,
        outputRef: call.output.hash,
        output: encodeBase64(call.output.payload),
      };
      await expect(begin(id, HASH)).resolves.toEqual(committed);
      await expect(begin(id, OTHER)).resolves.toEqual({ state: 'mismatch' });
      await expect(getInvocation(id)).resolves.toEqual(committed);
      await expect(end(id, 'abandoned', claimToken)).resolves.toEqual({ ended: false });
      await expect(getInvocation(id)).resolves.toEqual(committed);
      // A resend of the commit under its claim answers the first result.
      await expect(commit({ ...call.request, claimToken })).resolves.toEqual({
        ...reply,
        replayed: true,
      });
    });

    it('never lands a commit whose claim was given up, lapsed, reclaimed or is not its own (DESIGN.md §2)', async () => {
      const before = await logLength();
      const refused = async (id: string, claimToken: string | undefined) => {
        const call = toolCall(id, { fenced: id });
        const err = await refusal(
          commit({ ...call.request, ...(claimToken === undefined ? {} : { claimToken }) }),
        );
        expect(err).toBeInstanceOf(ClaimGivenUpError);
        expect(err.message).toBe(
          `the claim of invocation "${id}" was given up or lapsed; the commit is refused`,
        );
      };
      // Given up: the planner ended it after its commit did not answer.
      const givenUp = 'a2a:ep-late:given-up';
      const token = await claim(givenUp);
      await expect(end(givenUp, 'uncertain', token)).resolves.toEqual({ ended: true });
      await refused(givenUp, token);
      await expect(getInvocation(givenUp)).resolves.toEqual({
        state: 'ended',
        reason: 'uncertain',
      });
      // Lapsed: past its expiry by the database clock, though never ended.
      const lapsed = 'a2a:ep-late:lapsed';
      const lapsedToken = await claim(lapsed, LAPSING_TTL_MS);
      await eventually(
        async () => ((await getInvocation(lapsed)).state === 'ended' ? true : undefined),
        5_000,
        'the claim to lapse',
      );
      await refused(lapsed, lapsedToken);
      // Reclaimed by a resend: the first attempt's token no longer binds.
      await expect(begin(givenUp, HASH, CLAIM_TTL_MS, true)).resolves.toEqual(CLAIMED);
      await refused(givenUp, token);
      // Live, but another attempt's token, or none.
      const live = 'a2a:ep-late:live';
      await claim(live);
      await refused(live, 'e'.repeat(32));
      await refused(live, undefined);
      await expect(getInvocation(live)).resolves.toEqual({ state: 'in-flight' });
      expect(await logLength()).toBe(before);
    });

    it('answers end on an unknown id with ended:false and refuses a non-coordinator id on begin', async () => {
      await expect(
        client.request(
          'ledger.invocation.end',
          { invocationId: 'a2a:ep-x:none', reason: 'abandoned' },
          opts,
        ),
      ).resolves.toEqual({ ended: false });
      await expect(getInvocation('a2a:ep-x:none')).resolves.toEqual({ state: 'none' });
      const err = await refusal(begin('rest:claim', HASH));
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(
        'invocationId must be a2a:<episode>:<task> or mcp:<episode>:<task>, got "rest:claim"',
      );
    });
  });

  describe('reads and paging (world-spec §5.3–§5.9)', () => {
    const SEMANTIC_ID = 'test/paging/v1';
    const PAGED = 7;
    let paged: Ref[];

    beforeAll(async () => {
      const call = toolCall('mcp:ep-paging:t1', { paging: 1 });
      const extra = Array.from({ length: PAGED }, (_, i) =>
        makeJsonObject(SEMANTIC_ID, 'test', { i }),
      );
      await commit({
        ...call.request,
        objects: [...call.request.objects, ...extra.map(toWireObject)],
      });
      paged = extra.map((o) => o.hash).sort();
    });

    it('pages objects of a semantic id in ascending hash order after a keyset cursor, without payloads', async () => {
      const page = (after?: Ref, limit = 3) =>
        client.request(
          'ledger.objects.bySemanticId',
          { scope: READ_ALL, semanticId: SEMANTIC_ID, ...(after ? { after } : {}), limit },
          opts,
        );
      const first = await page();
      expect(first.items.map((o) => o.hash)).toEqual(paged.slice(0, 3));
      expect(first.items[0]).toEqual({
        hash: paged[0],
        interfaceHash: refOf(SEMANTIC_ID),
        semanticId: SEMANTIC_ID,
        provenance: 'test',
      });
      expect((await page(paged[2])).items.map((o) => o.hash)).toEqual(paged.slice(3, 6));
      expect((await page(paged[5])).items.map((o) => o.hash)).toEqual(paged.slice(6));
      expect((await page(paged[6])).items).toEqual([]);
      expect((await page(undefined, 1_000)).items.map((o) => o.hash)).toEqual(paged);
    });

    it('answers an unknown semantic id with no items', async () => {
      await expect(
        client.request(
          'ledger.objects.bySemanticId',
          { scope: READ_ALL, semanticId: 'test/unknown/v1', limit: 10 },
          opts,
        ),
      ).resolves.toEqual({ items: [] });
    });

    it('clamps a semantic-id page to PAGE_MAX', async () => {
      const many = Array.from({ length: PAGE_MAX + 2 }, (_, i) =>
        makeJsonObject('test/many/v1', 'test', { bulk: i }),
      );
      const call = toolCall('mcp:ep-many:t1', { many: 1 });
      await commit({
        ...call.request,
        objects: [...call.request.objects, ...many.map(toWireObject)],
      });
      const { items } = await client.request(
        'ledger.objects.bySemanticId',
        { scope: READ_ALL, semanticId: 'test/many/v1', limit: 10_000 },
        opts,
      );
      expect(items).toHaveLength(PAGE_MAX);
      expect(items.map((o) => o.hash)).toEqual(
        many
          .map((o) => o.hash)
          .sort()
          .slice(0, PAGE_MAX),
      );
    });

    it('serves an object envelope, and its payload only when asked', async () => {
      const call = toolCall('mcp:ep-object:t1', { object: 1 });
      await commit(call.request);
      const wire = toWireObject(call.input);
      const { payload: _payload, ...envelope } = wire;
      const bare = await client.request(
        'ledger.object.get',
        { scope: READ_ALL, ref: call.input.hash, payload: false },
        opts,
      );
      expect(bare).toEqual(envelope);
      expect('payload' in bare).toBe(false);
      await expect(
        client.request(
          'ledger.object.get',
          { scope: READ_ALL, ref: call.input.hash, payload: true },
          opts,
        ),
      ).resolves.toEqual(wire);
    });

    it('keeps the first provenance of an object carried twice', async () => {
      const a = toolCall('mcp:ep-prov:t1', { prov: 1 });
      await commit(a.request);
      const b = toolCall('mcp:ep-prov:t2', { prov: 2 });
      const relabelled = { ...toWireObject(a.input), provenance: 'somebody-else' };
      await commit({ ...b.request, objects: [...b.request.objects, relabelled] });
      const stored = await client.request(
        'ledger.object.get',
        { scope: READ_ALL, ref: a.input.hash, payload: false },
        opts,
      );
      expect(stored.provenance).toBe('coordinator:mcp');
      const [carriers] = await mode.database.db
        .select({ n: count() })
        .from(commitObjects)
        .where(eq(commitObjects.objectRef, a.input.hash));
      expect(carriers!.n).toBe(2);
    });

    it('pages the log from an index, empty past the end', async () => {
      const { entryIndex } = await head();
      const tail = await client.request(
        'ledger.log.range',
        { from: entryIndex - 2, limit: 10 },
        opts,
      );
      expect(tail.items.map((e: LogEntry) => e.header.entryIndex)).toEqual([
        entryIndex - 2,
        entryIndex - 1,
        entryIndex,
      ]);
      const two = await client.request('ledger.log.range', { from: 1, limit: 2 }, opts);
      expect(two.items.map((e) => e.header.entryIndex)).toEqual([1, 2]);
      await expect(
        client.request('ledger.log.range', { from: entryIndex + 1, limit: 10 }, opts),
      ).resolves.toEqual({ items: [] });
    });

    it('clamps a log page to PAGE_MAX', async () => {
      const [{ n }] = (await mode.database.db.select({ n: count() }).from(logEntries)) as [
        { n: number },
      ];
      const { items } = await client.request('ledger.log.range', { from: 0, limit: 10_000 }, opts);
      expect(items).toHaveLength(Math.min(n, PAGE_MAX));
    });

    it.each<[string, () => Promise<unknown>, string]>([
      [
        'a log entry',
        () => client.request('ledger.log.entry', { index: 1_000_000 }, opts),
        'log entry not found',
      ],
      [
        'a world',
        () => client.request('ledger.world.get', { ref: refOf('no world') }, opts),
        'world not found',
      ],
      [
        'an object',
        () =>
          client.request(
            'ledger.object.get',
            { scope: READ_ALL, ref: refOf('no object'), payload: true },
            opts,
          ),
        'object not found',
      ],
      [
        'a registry head',
        () => client.request('ledger.registry.get', { name: 'world/approvals/v1' }, opts),
        'registry head not found',
      ],
    ])('answers NotFound for an absent %s', async (_what, read, message) => {
      const err = await refusal(read());
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.message).toBe(message);
    });

    it('refuses a malformed ref on a read naming the field', async () => {
      const err = await refusal(
        client.request('ledger.world.get', { ref: 'sha256:short' as Ref }, opts),
      );
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe('ledger.world.get: ref: ref digest must be 64 hex characters');
    });
  });

  describe('registry heads (world-spec §5.9)', () => {
    it('publishes an object under a name and moves the head, changed:false when already there', async () => {
      const v1 = makeJsonObject('world/transition-registry/v1', 'world-publish', { tools: ['a'] });
      const v2 = makeJsonObject('world/transition-registry/v1', 'world-publish', {
        tools: ['a', 'b'],
      });
      const publish = (object: typeof v1) =>
        client.request(
          'ledger.registry.publish',
          { name: 'world/transition-registry/v1', object: toWireObject(object) },
          opts,
        );
      await expect(publish(v1)).resolves.toEqual({
        name: 'world/transition-registry/v1',
        head: v1.hash,
        changed: true,
      });
      await expect(publish(v1)).resolves.toEqual({
        name: 'world/transition-registry/v1',
        head: v1.hash,
        changed: false,
      });
      await expect(publish(v2)).resolves.toEqual({
        name: 'world/transition-registry/v1',
        head: v2.hash,
        changed: true,
      });
      await expect(
        client.request('ledger.registry.get', { name: 'world/transition-registry/v1' }, opts),
      ).resolves.toEqual({
        name: 'world/transition-registry/v1',
        head: v2.hash,
      });
      await expect(
        client.request('ledger.object.get', { scope: READ_ALL, ref: v2.hash, payload: true }, opts),
      ).resolves.toEqual(toWireObject(v2));
    });

    it('refuses a tampered registry object and leaves the head', async () => {
      const v = makeJsonObject('world/approvals/v1', 'test', { a: 1 });
      const forged = { ...toWireObject(v), payload: Buffer.from('{"a":2}').toString('base64') };
      const err = await refusal(
        client.request(
          'ledger.registry.publish',
          { name: 'world/approvals/v1', object: forged },
          opts,
        ),
      );
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.message).toBe(
        `object: object hash ${v.hash} does not match its payload (sha256 ${refOf('{"a":2}')})`,
      );
      const [stored] = await mode.database.db
        .select({ n: count() })
        .from(objectsTable)
        .where(eq(objectsTable.hash, v.hash));
      expect(stored!.n).toBe(0);
    });
  });
});
