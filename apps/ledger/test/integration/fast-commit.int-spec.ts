/**
 * The strategies of a tool commit (commit-strategies.ts): every one writes the same rows,
 * replies and events; the one-statement commit of a lone tool call (append.statements.ts
 * APPEND_ON_HEAD) does it in one round trip, falls back whenever the replica's last head is stale
 * or the journal must be looked at, and is all or nothing.
 */
import pg from 'pg';
import { entryHash, refOf, worldRef, type LogEntry, type Ref } from '@world/canonical';
import {
  DuplicateInvocationError,
  parseRequest,
  type ParsedRequestOf,
  type ReplyOf,
  type RequestOf,
} from '@world/contracts';
import { openPostgres, type DatabaseHandle, type RawQuery } from '@world/runtime';
import { createTestDatabase, eventually, type TestDatabase } from '@world/testing';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
} from '../../src/constants.js';
import { genesis } from '../../src/genesis/genesis.js';
import { bootstrapGenesis } from '../../src/genesis/bootstrap-genesis.js';
import {
  chainToolCommit,
  freshCommitReply,
  headAfter,
  type HeadPosition,
} from '../../src/commit/chain.js';
import type { ToolAppendWrite } from '../../src/commit/chain.js';
import { CommitInvocation } from '../../src/commit/commit-invocation.js';
import { CommitRest } from '../../src/commit/commit-rest.js';
import {
  ONE_STATEMENT,
  OWN_TRANSACTION,
  SHARED_TRANSACTION,
  type CommitStrategy,
  type Outcome,
} from '../../src/commit/commit-strategies.js';
import { CommitRepository } from '../../src/commit/commit.repository.js';
import { CommittedEvents } from '../../src/commit/committed-events.js';
import {
  decideToolCommit,
  prepareCommit,
  type PreparedCommit,
} from '../../src/commit/tool-commit.js';
import { JournalRepository } from '../../src/journal/journal.repository.js';
import {
  MODES,
  commitLone,
  restCommit,
  toolCall,
  type ModeSetup,
  type ToolCall,
} from '../support.js';

const G = genesis();
const GENESIS_HEAD: HeadPosition = {
  worldRef: G.world.ref,
  entryIndex: 0,
  entryHash: G.entry.entryHash,
  revision: 0,
};
/** A claim that outlives the test. */
const CLAIM_TTL_MS = 60_000;
/** One claim token on both sides of a comparison (begin mints a random one per claim). */
const SAME_TOKEN = 'c'.repeat(32);

/** Claims an id (begin) and sets its token to SAME_TOKEN, so both databases' rows compare equal. */
async function claimWithSameToken(
  database: DatabaseHandle,
  invocationId: string,
  reclaim = false,
): Promise<void> {
  const reply = await new JournalRepository(database).begin(
    invocationId,
    CLAIM_HASH,
    CLAIM_TTL_MS,
    reclaim,
  );
  expect(reply.state).toBe('claimed');
  await database.query(
    `UPDATE ledger.commit_journal SET claim_token = $2 WHERE invocation_id = $1`,
    [invocationId, SAME_TOKEN],
  );
}
const CLAIM_HASH = refOf('fast commit request').slice(7);
/** Concurrent lone commits: 2 replicas × 4 loops × 15 commits. */
const RACE_LOOPS = 4;
const RACE_COMMITS = 15;

type Reply = ReplyOf<'ledger.commit'>;
type Committed = RequestOf<'ledger.committed'>;

/** What one replica's commits cost and how they went. */
interface Counts {
  /** raw statements sent (inside transactions or alone), and those the database refused */
  statements: number;
  statementErrors: number;
  transactions: number;
  /** one-statement commits sent, and those that landed */
  fastSent: number;
  fastLanded: number;
}

/** A ledger replica's commit side over a handle that counts its statements. */
interface Replica {
  repository: CommitRepository;
  invocation: CommitInvocation;
  rest: CommitRest;
  events: Committed[];
  counts: Counts;
}

/** Round trips to the database: every statement, plus BEGIN and COMMIT per transaction. */
const roundTrips = (c: Counts) => c.statements + 2 * c.transactions;

function replica(database: DatabaseHandle): Replica {
  const counts: Counts = {
    statements: 0,
    statementErrors: 0,
    transactions: 0,
    fastSent: 0,
    fastLanded: 0,
  };
  const counted =
    (query: RawQuery): RawQuery =>
    <T>(text: string, params?: readonly unknown[], name?: string) => {
      counts.statements += 1;
      return query<T>(text, params, name).catch((err: unknown) => {
        counts.statementErrors += 1;
        throw err;
      });
    };
  const handle: DatabaseHandle = {
    ...database,
    query: counted(database.query),
    transaction<T>(work: (query: RawQuery) => Promise<T>): Promise<T> {
      counts.transactions += 1;
      return database.transaction((query) => work(counted(query)));
    },
  };
  class CountingRepository extends CommitRepository {
    override async appendOnHead(expected: HeadPosition, write: ToolAppendWrite) {
      counts.fastSent += 1;
      const landed = await super.appendOnHead(expected, write);
      if (landed) counts.fastLanded += 1;
      return landed;
    }
  }
  const repository = new CountingRepository(handle);
  const events: Committed[] = [];
  const announced = new CommittedEvents({
    emit: (_subject: string, event: Committed) => events.push(event),
  } as never);
  return {
    repository,
    invocation: new CommitInvocation(repository, announced),
    rest: new CommitRest(repository, announced),
    events,
    counts,
  };
}

const parsed = (request: RequestOf<'ledger.commit'>): ParsedRequestOf<'ledger.commit'> =>
  parseRequest('ledger.commit', request);

/** A lone prepared commit on replica `r`, the way chooseStrategy picks (or `strategy`). */
const commitAlone = (r: Replica, prepared: PreparedCommit, strategy?: CommitStrategy) =>
  commitLone(r.invocation, prepared, strategy);

/** The reply of a commit's outcome, or its error thrown. */
function replyOf(outcome: Outcome): Reply {
  if ('error' in outcome) throw outcome.error;
  return outcome.reply;
}

/** A lone `ledger.commit` as the controller commits it (chooseStrategy picks the way). */
const commit = (r: Replica, call: ToolCall | RequestOf<'ledger.commit'>) =>
  commitAlone(r, prepareCommit(parsed('request' in call ? call.request : call)));

/** The replies of `calls` committed in order on `head` (chainToolCommit). */
function chainedReplies(head: HeadPosition, calls: ToolCall[]): Reply[] {
  return calls.map((call) => {
    const chained = chainToolCommit(head, parsed(call.request));
    head = headAfter(chained);
    return freshCommitReply(chained);
  });
}

/** A call whose commit carries a claim token (SAME_TOKEN unless given). */
function withToken(call: ToolCall, claimToken = SAME_TOKEN): ToolCall {
  return { ...call, request: { ...call.request, claimToken } };
}

/** A tool commit's write chained on `head`, as decideToolCommit decides it. */
function writeOn(head: HeadPosition, call: ToolCall): ToolAppendWrite {
  const decision = decideToolCommit(prepareCommit(parsed(call.request)), { head, journal: null });
  if (decision.kind !== 'append') throw new Error(`expected an append, got ${decision.kind}`);
  return decision.write;
}

/** Migrates schema `ledger` and writes the genesis, as startLedger does. */
async function prepareLedger(database: DatabaseHandle): Promise<void> {
  await database.migrate({
    folder: LEDGER_MIGRATIONS_FOLDER,
    table: LEDGER_MIGRATIONS_TABLE,
    lockKey: LEDGER_LOCK_KEY,
  });
  await bootstrapGenesis(database);
}

interface RowCounts {
  objects: number;
  log_entries: number;
  worlds: number;
  commit_objects: number;
  commit_journal: number;
}

async function rowCounts(database: DatabaseHandle): Promise<RowCounts> {
  const { rows } = await database.query<RowCounts>(
    `SELECT (SELECT count(*) FROM ledger.objects)::int AS objects,
            (SELECT count(*) FROM ledger.log_entries)::int AS log_entries,
            (SELECT count(*) FROM ledger.worlds)::int AS worlds,
            (SELECT count(*) FROM ledger.commit_objects)::int AS commit_objects,
            (SELECT count(*) FROM ledger.commit_journal)::int AS commit_journal`,
  );
  return rows[0]!;
}

async function headRow(database: DatabaseHandle): Promise<HeadPosition> {
  const { rows } = await database.query<HeadPosition>(
    `SELECT world_ref AS "worldRef", entry_index::int AS "entryIndex", entry_hash AS "entryHash",
            revision::int AS revision
       FROM ledger.heads`,
  );
  return rows[0]!;
}

async function journalRow(database: DatabaseHandle, invocationId: string) {
  const { rows } = await database.query(
    `SELECT kind, state, claim_hash, commit_hash, end_reason, entry_index::int AS entry_index,
            world_ref, output_ref, updated_at::text AS updated_at
       FROM ledger.commit_journal WHERE invocation_id = $1`,
    [invocationId],
  );
  return rows[0] ?? null;
}

/** Which of these refs are stored objects. */
async function storedObjects(database: DatabaseHandle, refs: string[]): Promise<string[]> {
  const { rows } = await database.query<{ hash: string }>(
    `SELECT hash FROM ledger.objects WHERE hash = ANY($1::text[]) ORDER BY hash`,
    [refs],
  );
  return rows.map((r) => r.hash);
}

/** Every row of the ledger's tables but the journal's timestamps, in key order. */
async function dump(database: DatabaseHandle): Promise<Record<string, unknown[]>> {
  const order: Record<string, string> = {
    objects: 'hash',
    log_entries: 'entry_index',
    worlds: 'ref',
    heads: 'key',
    commit_objects: 'object_ref, entry_index',
    commit_journal: 'invocation_id',
    registry_heads: 'name',
  };
  const tables: Record<string, unknown[]> = {};
  for (const [table, by] of Object.entries(order)) {
    const { rows } = await database.query<{ row: unknown }>(
      `SELECT to_jsonb(t) - 'created_at' - 'updated_at' - 'claim_expires_at' AS row
         FROM ledger.${table} t ORDER BY ${by}`,
    );
    tables[table] = rows.map((r) => r.row);
  }
  return tables;
}

/** The log entries after `from`, as rows. */
async function entriesAfter(database: DatabaseHandle, from: number) {
  const { rows } = await database.query<{
    entry_index: number;
    entry_hash: string;
    semantics_epoch: number;
    transition_fn: string;
    interpreter: string;
    prev_entry_hash: string;
    written_by: string;
    transition_ref: string;
  }>(
    `SELECT entry_index::int AS entry_index, entry_hash, semantics_epoch::int AS semantics_epoch,
            transition_fn, interpreter, prev_entry_hash, written_by, transition_ref
       FROM ledger.log_entries WHERE entry_index > $1 ORDER BY entry_index`,
    [from],
  );
  return rows;
}

/** Checks entries are dense from `from` + 1, each hash recomputes and links to the previous. */
function expectDenseAndLinked(
  entries: Awaited<ReturnType<typeof entriesAfter>>,
  from: HeadPosition,
): void {
  let prev = from;
  for (const row of entries) {
    expect(row.entry_index).toBe(prev.entryIndex + 1);
    expect(row.prev_entry_hash).toBe(prev.entryHash);
    const header = {
      entryIndex: row.entry_index,
      semanticsEpoch: row.semantics_epoch,
      transitionFn: row.transition_fn,
      interpreter: row.interpreter,
      prevEntryHash: row.prev_entry_hash,
      writtenBy: row.written_by,
    } as LogEntry['header'];
    expect(entryHash(header, row.transition_ref as Ref)).toBe(row.entry_hash);
    prev = { ...prev, entryIndex: row.entry_index, entryHash: row.entry_hash as Ref };
  }
}

describe.each(MODES)('one-statement commit of a lone tool call over %s', (_mode, setupMode) => {
  let mode: ModeSetup;
  let database: DatabaseHandle;
  /** a second replica's handle: its own pool on the same database */
  let other: DatabaseHandle;

  beforeAll(async () => {
    mode = await setupMode();
    database = mode.database;
    await prepareLedger(database);
    other = mode.reopen === undefined ? database : await mode.reopen();
  });

  afterAll(async () => {
    if (other !== undefined && other !== database) await other.close();
    await mode?.teardown();
  });

  it('writes the same rows, replies and events whichever strategy commits the calls: one statement each on a warm replica, a transaction each, or one shared transaction', async () => {
    // The one-statement side runs on this file's database, still at genesis (first test;
    // asserted below), the own and shared transaction sides on fresh twin databases.
    const fastDb = database;
    const txDb = await mode.another();
    await prepareLedger(txDb);
    const sharedDb = await mode.another();
    await prepareLedger(sharedDb);
    const claimed = withToken(toolCall('a2a:ep-same:claimed', { claimed: 1 }, { answer: 42 }));
    // Ended by its first attempt, then reclaimed by a resend: the resend's claim binds.
    const ended = withToken(toolCall('a2a:ep-same:ended', { ended: 1 }, { answer: 'late' }));
    for (const db of [fastDb, txDb, sharedDb]) {
      await claimWithSameToken(db, claimed.request.invocationId);
      await claimWithSameToken(db, ended.request.invocationId);
      await new JournalRepository(db).end(ended.request.invocationId, 'uncertain');
      await claimWithSameToken(db, ended.request.invocationId, true);
    }
    // t1 and t2 carry the same output object (incident 25: one membership row per carrier).
    const calls = [
      toolCall('mcp:ep-same:t1', { n: 1 }),
      claimed,
      toolCall('mcp:ep-same:t2', { n: 2 }),
      ended,
    ];

    const fast = replica(fastDb);
    const slow = replica(txDb);
    const shared = replica(sharedDb);
    await expect(fast.repository.refreshHead()).resolves.toEqual(GENESIS_HEAD);
    const fastReplies: Reply[] = [];
    for (const call of calls)
      fastReplies.push(await commitAlone(fast, prepareCommit(parsed(call.request)), ONE_STATEMENT));
    const slowReplies: Reply[] = [];
    for (const call of calls)
      slowReplies.push(
        await commitAlone(slow, prepareCommit(parsed(call.request)), OWN_TRANSACTION),
      );
    const sharedReplies = (
      await shared.invocation.commitBatch(
        calls.map((call) => prepareCommit(parsed(call.request))),
        undefined,
        SHARED_TRANSACTION,
      )
    ).map(replyOf);

    expect(fastReplies).toEqual(chainedReplies(GENESIS_HEAD, calls));
    expect(fastReplies.map((r) => [r.entryIndex, r.revision, r.replayed])).toEqual([
      [1, 1, false],
      [2, 2, false],
      [3, 3, false],
      [4, 4, false],
    ]);
    expect(fastReplies[0]!.prevEntryHash).toBe(G.entry.entryHash);
    expect(slowReplies).toEqual(fastReplies);
    expect(sharedReplies).toEqual(fastReplies);
    const announced = fastReplies.map((r, i) => ({
      entryIndex: r.entryIndex,
      entryHash: r.entryHash,
      worldRef: r.worldRef,
      writtenBy: 'coordinator:mcp',
      invocationId: calls[i]!.request.invocationId,
    }));
    expect(fast.events).toEqual(announced);
    expect(slow.events).toEqual(announced);
    expect(shared.events).toEqual(announced);

    // Every row of every table is the same as the transaction wrote.
    expect(await dump(fastDb)).toEqual(await dump(txDb));
    expect(await dump(sharedDb)).toEqual(await dump(txDb));
    const [first] = await entriesAfter(fastDb, 0);
    expect(first).toEqual({
      entry_index: 1,
      entry_hash: fastReplies[0]!.entryHash,
      semantics_epoch: 1,
      transition_fn: calls[0]!.request.transitionFn,
      interpreter: calls[0]!.request.interpreter,
      prev_entry_hash: G.entry.entryHash,
      written_by: 'coordinator:mcp',
      transition_ref: calls[0]!.record.hash,
    });
    expect(
      worldRef({
        revision: 1,
        stateRoot: calls[0]!.output.hash,
        logHead: fastReplies[0]!.entryHash,
      }),
    ).toBe(fastReplies[0]!.worldRef);
    expect(await headRow(fastDb)).toEqual({
      worldRef: fastReplies[3]!.worldRef,
      entryIndex: 4,
      entryHash: fastReplies[3]!.entryHash,
      revision: 4,
    });
    expect({ ...(await journalRow(fastDb, claimed.request.invocationId)), updated_at: 0 }).toEqual({
      kind: 'tool',
      state: 'committed',
      claim_hash: CLAIM_HASH,
      commit_hash: prepareCommit(parsed(claimed.request)).commitHash,
      end_reason: null,
      entry_index: 2,
      world_ref: fastReplies[1]!.worldRef,
      output_ref: claimed.output.hash,
      updated_at: 0,
    });
    expect(await journalRow(fastDb, ended.request.invocationId)).toMatchObject({
      state: 'committed',
      end_reason: null,
      entry_index: 4,
    });

    // One statement per commit (+ the start-up head read) against BEGIN, lockHead, append, the
    // tree's extension (commit/tree.ts TREE_EXTEND), COMMIT.
    expect(fast.counts).toEqual({
      statements: 1 + calls.length,
      statementErrors: 0,
      transactions: 0,
      fastSent: calls.length,
      fastLanded: calls.length,
    });
    expect(roundTrips(fast.counts) - 1).toBe(calls.length);
    expect(slow.counts).toEqual({
      statements: 3 * calls.length,
      statementErrors: 0,
      transactions: calls.length,
      fastSent: 0,
      fastLanded: 0,
    });
    expect(roundTrips(slow.counts)).toBe(5 * calls.length);
    // One transaction for all: lockHead, the journal rows, one append each, the tree's extension.
    expect(shared.counts).toEqual({
      statements: 3 + calls.length,
      statementErrors: 0,
      transactions: 1,
      fastSent: 0,
      fastLanded: 0,
    });
  });

  it('falls back to the transaction when another writer moved the head (a second replica, a REST commit), with no gap and no duplicate', async () => {
    const a = replica(database);
    const b = replica(other);
    const start = await a.repository.refreshHead();
    await b.repository.refreshHead();
    const call = (n: number) => toolCall(`mcp:ep-stale:t${n}`, { stale: n });

    const r1 = await commit(a, call(1)); // a's head is right: one statement
    expect(a.counts).toMatchObject({ fastSent: 1, fastLanded: 1, transactions: 0 });
    const r2 = await commit(b, call(2)); // b's head is stale (a moved it): falls back
    expect(b.counts).toMatchObject({ fastSent: 1, fastLanded: 0, transactions: 1 });
    const r3 = await commit(a, call(3)); // a's head is stale now (b moved it): falls back
    expect(a.counts).toMatchObject({ fastSent: 2, fastLanded: 1, transactions: 1 });
    const r4 = await commit(a, call(4)); // the fallback refreshed a's head: one statement
    expect(a.counts).toMatchObject({ fastSent: 3, fastLanded: 2, transactions: 1 });
    const rest = restCommit(await headRow(database), 'fast-stale-rest');
    await expect(b.rest.execute(parseRequest('ledger.restCommit', rest))).resolves.toEqual({
      selectedHead: rest.nextWorld.ref,
    });
    const r5 = await commit(a, call(5)); // the REST commit moved the head: falls back
    expect(a.counts).toMatchObject({ fastSent: 4, fastLanded: 2, transactions: 2 });
    const r6 = await commit(a, call(6));
    expect(a.counts).toMatchObject({ fastSent: 5, fastLanded: 3, transactions: 2 });

    expect(
      [r1, r2, r3, r4, r5, r6].map((r) => [r.entryIndex - start.entryIndex, r.replayed]),
    ).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, false],
      [6, false],
      [7, false],
    ]);
    const entries = await entriesAfter(database, start.entryIndex);
    expectDenseAndLinked(entries, start);
    expect(entries.map((e) => e.transition_ref)).toEqual([
      call(1).record.hash,
      call(2).record.hash,
      call(3).record.hash,
      call(4).record.hash,
      rest.entry.transitionRef,
      call(5).record.hash,
      call(6).record.hash,
    ]);
    for (const [n, reply] of [r1, r2, r3, r4, r5, r6].entries()) {
      expect(reply.entryHash).toBe(entries[reply.entryIndex - start.entryIndex - 1]!.entry_hash);
      expect(reply.prevEntryHash).toBe(
        entries[reply.entryIndex - start.entryIndex - 1]!.prev_entry_hash,
      );
      expect(await journalRow(database, `mcp:ep-stale:t${n + 1}`)).toMatchObject({
        state: 'committed',
        entry_index: reply.entryIndex,
        world_ref: reply.worldRef,
      });
    }
    expect(await headRow(database)).toEqual({
      worldRef: r6.worldRef,
      entryIndex: start.entryIndex + 7,
      entryHash: r6.entryHash,
      revision: start.revision + 7,
    });
  });

  it('answers a resend of a committed invocation replayed:true with its first result and writes nothing', async () => {
    const r = replica(database);
    await r.repository.refreshHead();
    const call = toolCall('a2a:ep-fast-resend:t1', { resend: 1 });
    const first = await commit(r, call);
    expect(r.counts).toMatchObject({ fastSent: 1, fastLanded: 1, transactions: 0 });
    const rows = await rowCounts(database);
    const head = await headRow(database);
    const journal = await journalRow(database, call.request.invocationId);

    // The statement's head guard finds the journal row committed: it updates nothing, so writes
    // nothing (without an error), and the transaction answers.
    await expect(commit(r, call)).resolves.toEqual({ ...first, replayed: true });
    expect(r.counts).toMatchObject({
      fastSent: 2,
      fastLanded: 1,
      transactions: 1,
      statementErrors: 0,
    });
    const different = await commit(r, toolCall('a2a:ep-fast-resend:t1', { resend: 2 })).catch(
      (err: unknown) => err,
    );
    expect(different).toBeInstanceOf(DuplicateInvocationError);
    expect((different as Error).message).toBe(
      'invocation id "a2a:ep-fast-resend:t1" was already used for different content',
    );
    expect(r.counts).toMatchObject({
      fastSent: 3,
      fastLanded: 1,
      transactions: 2,
      statementErrors: 0,
    });
    expect(await rowCounts(database)).toEqual(rows);
    expect(await headRow(database)).toEqual(head);
    expect(await journalRow(database, call.request.invocationId)).toEqual(journal);
    expect(r.events.map((e) => e.invocationId)).toEqual(['a2a:ep-fast-resend:t1']);

    // Two one-statement misses in a row (the resend, the different content): the replica backs
    // off for FAST_PATH_BACKOFF lone commits (last-head.ts), so the next one takes the
    // transaction, chained right after the first.
    await expect(
      commit(r, toolCall('a2a:ep-fast-resend:t2', { resend: 3 })),
    ).resolves.toMatchObject({
      entryIndex: first.entryIndex + 1,
      prevEntryHash: first.entryHash,
      replayed: false,
    });
    expect(r.counts).toMatchObject({ fastSent: 3, fastLanded: 1, transactions: 3 });
  });

  it('commits an invocation claimed by ledger.invocation.begin in one statement, its journal row ending committed', async () => {
    const r = replica(database);
    await r.repository.refreshHead();
    const journal = new JournalRepository(database);
    const id = 'a2a:ep-fast-claim:t1';
    const claim = await journal.begin(id, CLAIM_HASH, CLAIM_TTL_MS, false);
    expect(claim).toEqual({
      state: 'claimed',
      claimToken: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const call = withToken(
      toolCall(id, { claim: 1 }, { answer: 'claimed', exact: [1, 2, 3] }),
      (claim as { claimToken: string }).claimToken,
    );
    const reply = await commit(r, call);
    expect(r.counts).toMatchObject({ fastSent: 1, fastLanded: 1, transactions: 0 });
    expect({ ...(await journalRow(database, id)), updated_at: 0 }).toEqual({
      kind: 'tool',
      state: 'committed',
      claim_hash: CLAIM_HASH,
      commit_hash: prepareCommit(parsed(call.request)).commitHash,
      end_reason: null,
      entry_index: reply.entryIndex,
      world_ref: reply.worldRef,
      output_ref: call.output.hash,
      updated_at: 0,
    });
    // A later begin of the same request answers the committed output's exact bytes.
    await expect(journal.begin(id, CLAIM_HASH, CLAIM_TTL_MS, false)).resolves.toEqual({
      state: 'committed',
      entryIndex: reply.entryIndex,
      worldRef: reply.worldRef,
      outputRef: call.output.hash,
      output: Buffer.from(call.output.payload).toString('base64'),
    });
    await expect(journal.end(id, 'abandoned')).resolves.toBe(false);
  });

  it('writes no row of objects, log_entries, worlds, commit_objects or commit_journal when the statement’s head guard fails', async () => {
    const r = replica(database);
    const before = await r.repository.refreshHead();
    await commit(r, toolCall('a2a:ep-guard:done', { done: 1 }));
    const now = r.repository.lastHead.get()!;
    expect(now.entryIndex).toBe(before.entryIndex + 1);
    const claimedId = 'a2a:ep-guard:claimed';
    await claimWithSameToken(database, claimedId);
    // Every call carries objects never stored before.
    const fresh = (id: string, label: string) =>
      toolCall(id, { guardIn: label }, { guardOut: label });
    const cases: Array<[string, HeadPosition, ToolCall]> = [
      ['a stale entry index', before, fresh('a2a:ep-guard:t1', 'stale index')],
      [
        'a wrong entry hash',
        { ...now, entryHash: refOf('no entry') },
        fresh('a2a:ep-guard:t2', 'hash'),
      ],
      ['a wrong revision', { ...now, revision: now.revision + 1 }, fresh('a2a:ep-guard:t3', 'rev')],
      ['a stale head on a claimed row', before, withToken(fresh(claimedId, 'claimed'))],
      [
        'the head, but another attempt’s claim',
        now,
        withToken(fresh(claimedId, 'other'), 'd'.repeat(32)),
      ],
      ['the head, but a claim without a token', now, fresh(claimedId, 'none')],
      ['the head, but a committed journal row', now, fresh('a2a:ep-guard:done', 'again')],
    ];
    const rows = await rowCounts(database);
    const head = await headRow(database);
    const claimedRow = await journalRow(database, claimedId);
    const doneRow = await journalRow(database, 'a2a:ep-guard:done');
    for (const [, expected, call] of cases) {
      await expect(r.repository.appendOnHead(expected, writeOn(expected, call))).resolves.toBe(
        false,
      );
      expect(await rowCounts(database)).toEqual(rows);
      expect(await headRow(database)).toEqual(head);
      expect(
        await storedObjects(database, [call.input.hash, call.output.hash, call.record.hash]),
      ).toEqual([]);
      expect(await journalRow(database, claimedId)).toEqual(claimedRow);
      expect(await journalRow(database, 'a2a:ep-guard:done')).toEqual(doneRow);
    }
    expect(await journalRow(database, 'a2a:ep-guard:t1')).toBeNull();
    expect(r.repository.lastHead.get()).toEqual(now);
    // Each statement updated nothing rather than failing (the journal guard never fired).
    expect(r.counts.statementErrors).toBe(0);

    // On the head it stands on, the same statement writes all of it.
    const call = fresh('a2a:ep-guard:t1', 'stale index');
    await expect(r.repository.appendOnHead(now, writeOn(now, call))).resolves.toBe(true);
    expect(await rowCounts(database)).toEqual({
      objects: rows.objects + 3,
      log_entries: rows.log_entries + 1,
      worlds: rows.worlds + 1,
      commit_objects: rows.commit_objects + 3,
      commit_journal: rows.commit_journal + 1,
    });
    expect(await headRow(database)).toEqual(headAfter(writeOn(now, call)));
    expect(r.repository.lastHead.get()).toEqual(headAfter(writeOn(now, call)));
  });

  it('keeps the log dense and hash-linked when two replicas commit lone calls concurrently', async () => {
    const replicas = [replica(database), replica(other)];
    const start = await replicas[0]!.repository.refreshHead();
    await replicas[1]!.repository.refreshHead();
    const replies = (
      await Promise.all(
        replicas.flatMap((r, ri) =>
          Array.from({ length: RACE_LOOPS }, async (_, loop) => {
            const mine: Array<[string, Reply]> = [];
            for (let n = 0; n < RACE_COMMITS; n++) {
              const call = toolCall(`mcp:ep-race${ri}-${loop}:t${n}`, { ri, loop, n });
              mine.push([call.record.hash, await commit(r, call)]);
            }
            return mine;
          }),
        ),
      )
    ).flat();
    const total = replicas.length * RACE_LOOPS * RACE_COMMITS;
    const entries = await entriesAfter(database, start.entryIndex);
    expect(entries).toHaveLength(total);
    expectDenseAndLinked(entries, start);
    expect(new Set(entries.map((e) => e.transition_ref)).size).toBe(total);
    for (const [record, reply] of replies) {
      const entry = entries[reply.entryIndex - start.entryIndex - 1]!;
      expect(reply.replayed).toBe(false);
      expect(entry.transition_ref).toBe(record);
      expect(reply.entryHash).toBe(entry.entry_hash);
      expect(reply.prevEntryHash).toBe(entry.prev_entry_hash);
    }
    const { rows } = await database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger.commit_journal j
         JOIN ledger.log_entries e ON e.entry_index = j.entry_index
        WHERE j.invocation_id LIKE 'mcp:ep-race%' AND j.state = 'committed'
          AND e.entry_index > $1`,
      [start.entryIndex],
    );
    expect(rows[0]!.n).toBe(total);
    // Each commit landed in one statement or committed in exactly one transaction.
    for (const r of replicas) {
      expect(r.counts.fastLanded + r.counts.transactions).toBe(RACE_LOOPS * RACE_COMMITS);
    }
  });
});

/** Resolves once some backend of this database waits for another transaction to end. */
function waitingOnLock(database: DatabaseHandle, what: string): Promise<true> {
  return eventually(
    async () => {
      const { rows } = await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE NOT granted AND locktype = 'transactionid' AND database IS NULL
            AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
      );
      return rows[0]!.n > 0 ? true : undefined;
    },
    10_000,
    what,
  );
}

describe('one-statement commit on PostgreSQL beside concurrent writers', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('ledger_fast_guard');
    database = await openPostgres(tdb.url);
    await prepareLedger(database);
  });

  afterAll(async () => {
    await database?.close();
    await tdb?.drop();
  });

  it('writes nothing when the journal outcome could not bind after the head moved, and the transaction answers', async () => {
    // Only a commit of the same id could make the journal row unbindable, and that commit moves
    // the head first; a row committed behind the head's back forces the case the guard is for.
    const r = replica(database);
    const head = await r.repository.refreshHead();
    const call = toolCall('a2a:ep-jguard:t1', { jguardIn: 1 }, { jguardOut: 1 });
    const prepared = prepareCommit(parsed(call.request));
    const write = writeOn(head, call);
    const rows = await rowCounts(database);
    const sneak = new pg.Client({ connectionString: tdb.url });
    await sneak.connect();
    try {
      await sneak.query('BEGIN');
      await sneak.query(
        `INSERT INTO ledger.commit_journal (invocation_id, kind, state, commit_hash, entry_index,
           world_ref, output_ref)
         VALUES ($1, 'tool', 'committed', 'another commit', 0, $2, $3)`,
        [prepared.invocationId, G.world.ref, G.world.stateRoot],
      );
      // Not yet visible: the statement's head guard passes, then its journal insert waits.
      const pending = r.repository.appendOnHead(head, write);
      await waitingOnLock(database, 'the one-statement commit to wait on the journal row');
      await sneak.query('COMMIT');
      await expect(pending).resolves.toBe(false);
    } finally {
      await sneak.end();
    }
    expect(await rowCounts(database)).toEqual({ ...rows, commit_journal: rows.commit_journal + 1 });
    expect(await headRow(database)).toEqual(head);
    expect(
      await storedObjects(database, [call.input.hash, call.output.hash, call.record.hash]),
    ).toEqual([]);

    // The transaction path answers the id as used for different content.
    const outcome = await commitAlone(r, prepared).catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(DuplicateInvocationError);
    expect(r.counts).toMatchObject({
      fastSent: 2,
      fastLanded: 0,
      transactions: 1,
      statementErrors: 1,
    });
    expect(await headRow(database)).toEqual(head);
  });

  it('updates nothing when another replica appends while it waits on the head row, then falls back and chains after it', async () => {
    const r = replica(database);
    const head = await r.repository.refreshHead();
    const otherPool = await openPostgres(tdb.url);
    const other = new CommitRepository(otherPool);
    const theirs = toolCall('a2a:ep-wait:theirs', { theirs: 1 });
    const mine = toolCall('a2a:ep-wait:mine', { mine: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const written = new Promise<void>((resolve) => (appended = resolve));
    // The other replica holds the head row's lock with its append written, not yet committed.
    const their = other.transaction(async (t) => {
      const { head: locked } = await t.lockHead(theirs.request.invocationId);
      expect(await t.append(writeOn(locked, theirs))).toBe(true);
      appended();
      await gate;
    });
    await written;
    const rows = await rowCounts(database);
    const pending = r.repository.appendOnHead(head, writeOn(head, mine));
    await waitingOnLock(database, 'the one-statement commit to wait on the head row');
    release();
    await their;
    // Re-checked against the committed head row, its guard matched nothing: nothing written.
    await expect(pending).resolves.toBe(false);
    expect(await rowCounts(database)).toEqual({
      objects: rows.objects + 3,
      log_entries: rows.log_entries + 1,
      worlds: rows.worlds + 1,
      commit_objects: rows.commit_objects + 3,
      commit_journal: rows.commit_journal + 1,
    });
    expect(await journalRow(database, mine.request.invocationId)).toBeNull();
    const reply = await commit(r, mine);
    expect(reply).toEqual(chainedReplies(head, [theirs, mine])[1]);
    expect(r.counts).toMatchObject({
      fastSent: 2,
      fastLanded: 0,
      transactions: 1,
      statementErrors: 0,
    });
    await otherPool.close();
  });

  it('binds a claim that ledger.invocation.begin inserts while the statement runs', async () => {
    const r = replica(database);
    const head = await r.repository.refreshHead();
    const call = withToken(
      toolCall('a2a:ep-racing-claim:t1', { racing: 1 }, { claimed: 'racing' }),
    );
    const sneak = new pg.Client({ connectionString: tdb.url });
    await sneak.connect();
    let pending: Promise<boolean>;
    try {
      await sneak.query('BEGIN');
      // begin's insert of a fresh claim (journal.repository.ts), not yet committed.
      await sneak.query(
        `INSERT INTO ledger.commit_journal
           (invocation_id, kind, claim_hash, state, claim_expires_at, claim_token)
         VALUES ($1, 'tool', $2, 'claimed', now() + interval '1 minute', $3)`,
        [call.request.invocationId, CLAIM_HASH, SAME_TOKEN],
      );
      pending = r.repository.appendOnHead(head, writeOn(head, call));
      await waitingOnLock(database, 'the one-statement commit to wait on the claim');
      await sneak.query('COMMIT');
    } finally {
      await sneak.end();
    }
    await expect(pending).resolves.toBe(true);
    const reply = chainedReplies(head, [call])[0]!;
    expect({ ...(await journalRow(database, call.request.invocationId)), updated_at: 0 }).toEqual({
      kind: 'tool',
      state: 'committed',
      claim_hash: CLAIM_HASH,
      commit_hash: prepareCommit(parsed(call.request)).commitHash,
      end_reason: null,
      entry_index: reply.entryIndex,
      world_ref: reply.worldRef,
      output_ref: call.output.hash,
      updated_at: 0,
    });
    expect(await headRow(database)).toEqual({
      worldRef: reply.worldRef,
      entryIndex: reply.entryIndex,
      entryHash: reply.entryHash,
      revision: reply.revision,
    });
  });
});
