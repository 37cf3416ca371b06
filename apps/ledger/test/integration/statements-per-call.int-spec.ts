/**
 * The statements each ledger call sends to PostgreSQL, pinned (bench/README.md "What the misses
 * are made of": every message is a process wake-up, so the count per call is a performance
 * contract). Each call goes through its controller — the wire surface — on a replica wired like
 * startLedger's, and every statement its connections send is recorded by node-postgres' Client:
 * named statements by name, others by their first words; BEGIN, COMMIT and ROLLBACK included.
 * The checkpoint signer is left out (it signs in the background, after the reply).
 */
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import pg from 'pg';
import { makeJsonObject, toWireObject } from '@world/canonical';
import { READ_ALL, type RequestOf } from '@world/contracts';
import { openPostgres, type DatabaseHandle, type RpcClient } from '@world/runtime';
import { createTestDatabase, type TestDatabase } from '@world/testing';
import {
  LEDGER_LOCK_KEY,
  LEDGER_MIGRATIONS_FOLDER,
  LEDGER_MIGRATIONS_TABLE,
} from '../../src/constants.js';
import { bootstrapGenesis } from '../../src/genesis/bootstrap-genesis.js';
import { LedgerModule } from '../../src/ledger.module.js';
import { CommitController } from '../../src/commit/commit.controller.js';
import { TreeGuard } from '../../src/commit/tree-guard.js';
import { JournalController } from '../../src/journal/journal.controller.js';
import { ReadsController } from '../../src/reads/reads.controller.js';
import { RegistryController } from '../../src/registry/registry.controller.js';
import type { CheckpointSigner } from '../../src/tlog/checkpoint-signer.js';
import { TreeRepository } from '../../src/tlog/tree.repository.js';
import { restCommit, toolCall, type HeadView } from '../support.js';

/** The application name of the counted connections. */
const COUNTED = 'ledger-statement-count';
/** A claim that outlives the test. */
const CLAIM_TTL_MS = 60_000;

/** Every statement the counted connections sent, in order. */
const sent: string[] = [];

/** A statement as recorded: its name when named, else its first three words (lower case). */
function label(config: unknown): string {
  if (typeof config === 'string') return firstWords(config);
  const { name, text } = config as { name?: string; text?: string };
  return name ?? firstWords(text ?? '');
}

function firstWords(text: string): string {
  return text
    .replace(/"/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .split(' ')
    .slice(0, 3)
    .join(' ');
}

const query = pg.Client.prototype.query;
beforeAll(() => {
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const name = (this as unknown as { connectionParameters: { application_name?: string } })
      .connectionParameters.application_name;
    if (name === COUNTED) sent.push(label(config));
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof query;
});
afterAll(() => {
  pg.Client.prototype.query = query;
});

/** The statements `work` sent. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  await work();
  return [...sent];
}

/** A request as the wire carries it. */
const wire = <T>(request: T): unknown => JSON.parse(JSON.stringify(request));

describe('statements sent per ledger call (PostgreSQL)', () => {
  let tdb: TestDatabase;
  let database: DatabaseHandle;
  let app: INestApplicationContext;
  let commits: CommitController;
  let journal: JournalController;
  let reads: ReadsController;
  let registry: RegistryController;
  const events: Array<RequestOf<'ledger.committed'>> = [];

  const head = async (): Promise<HeadView> => {
    const reply = await reads.head({});
    return {
      worldRef: reply.worldRef!,
      entryIndex: reply.entryIndex!,
      entryHash: (await reads.entry({ index: reply.entryIndex! })).entryHash,
      revision: reply.world!.revision,
    };
  };

  beforeAll(async () => {
    tdb = await createTestDatabase('ledger_statements');
    database = await openPostgres(tdb.url, { applicationName: COUNTED });
    await database.migrate({
      folder: LEDGER_MIGRATIONS_FOLDER,
      table: LEDGER_MIGRATIONS_TABLE,
      lockKey: LEDGER_LOCK_KEY,
    });
    const rpc = {
      emit: (_subject: string, event: RequestOf<'ledger.committed'>) => events.push(event),
    } as unknown as RpcClient;
    const signer = { committed: () => undefined } as unknown as CheckpointSigner;
    app = await NestFactory.createApplicationContext(
      LedgerModule.register({
        database,
        rpc,
        replica: 'ledger-count',
        guard: new TreeGuard(),
        signer,
        tree: new TreeRepository(database),
      }),
      { logger: false },
    );
    commits = app.get(CommitController);
    journal = app.get(JournalController);
    reads = app.get(ReadsController);
    registry = app.get(RegistryController);
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await tdb?.drop();
  });

  it('creates the genesis and its tree in two transactions', async () => {
    expect(await statementsOf(() => bootstrapGenesis(database))).toEqual([
      'begin',
      'select pg_advisory_xact_lock($1)',
      'select key from',
      'insert into ledger.objects',
      'insert into ledger.log_entries',
      'insert into ledger.worlds',
      'insert into ledger.commit_objects',
      'insert into ledger.heads',
      'insert into ledger.registry_heads',
      'commit',
      'begin',
      'select entry_index, tree_border',
      'delete from ledger.tree_nodes',
      'select entry_index, entry_hash,',
      'insert into ledger.tree_nodes',
      'update ledger.heads set',
      'commit',
    ]);
  });

  it('commits a tool call in its own transaction on a replica that has seen no head', async () => {
    const call = toolCall('mcp:ep-count:cold', { cold: 1 });
    expect(await statementsOf(() => commits.commit(wire(call.request)))).toEqual([
      'begin',
      'ledger_commit_lock_head',
      'ledger_commit_append_tool',
      'ledger_tree_extend',
      'commit',
    ]);
  });

  it('commits a lone tool call in one statement on the head the replica saw', async () => {
    const call = toolCall('mcp:ep-count:warm', { warm: 1 });
    expect(await statementsOf(() => commits.commit(wire(call.request)))).toEqual([
      'ledger_commit_append_on_head',
    ]);
  });

  it('answers a resend and refuses other content under an id after one guarded statement each', async () => {
    const call = toolCall('mcp:ep-count:warm', { warm: 1 });
    const replayTx = ['begin', 'ledger_commit_lock_head', 'commit'];
    expect(await statementsOf(() => commits.commit(wire(call.request)))).toEqual([
      'ledger_commit_append_on_head',
      ...replayTx,
    ]);
    const other = toolCall('mcp:ep-count:warm', { warm: 2 });
    expect(
      await statementsOf(() => commits.commit(wire(other.request)).catch(() => undefined)),
    ).toEqual(['ledger_commit_append_on_head', 'begin', 'ledger_commit_lock_head', 'rollback']);
    // Two misses in a row: the next lone commits take the transaction (last-head.ts backoff).
    const after = toolCall('mcp:ep-count:backoff', { backoff: 1 });
    expect(await statementsOf(() => commits.commit(wire(after.request)))).toEqual([
      'begin',
      'ledger_commit_lock_head',
      'ledger_commit_append_tool',
      'ledger_tree_extend',
      'commit',
    ]);
    // Past the backoff, lone commits are one statement again.
    for (let i = 0; i < 7; i++)
      await commits.commit(wire(toolCall(`mcp:ep-count:skip${i}`, { skip: i }).request));
    const warm = toolCall('mcp:ep-count:warm-again', { warm: 3 });
    expect(await statementsOf(() => commits.commit(wire(warm.request)))).toEqual([
      'ledger_commit_append_on_head',
    ]);
  });

  it('commits a tool call whose state root is stored, not carried, in a transaction that looks it up', async () => {
    const first = toolCall('mcp:ep-count:carrier', { carrier: 1 }, { shared: 'stored' });
    await commits.commit(wire(first.request));
    const leaning = toolCall('mcp:ep-count:leaning', { leaning: 1 }, { shared: 'stored' });
    const request = {
      ...leaning.request,
      objects: [leaning.request.objects[0]!, leaning.request.objects[2]!],
    };
    expect(await statementsOf(() => commits.commit(wire(request)))).toEqual([
      'begin',
      'ledger_commit_lock_head',
      'ledger_commit_stored_objects',
      'ledger_commit_append_tool',
      'ledger_tree_extend',
      'commit',
    ]);
  });

  it('commits concurrent tool calls as one lone statement, then one transaction for the rest', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => toolCall(`mcp:ep-count:g${i}`, { g: i }));
    const stored = toolCall('mcp:ep-count:g-stored', { g: 'stored' }, { shared: 'stored' });
    const requests = [
      ...calls.map((c) => c.request),
      { ...stored.request, objects: [stored.request.objects[0]!, stored.request.objects[2]!] },
    ];
    expect(
      await statementsOf(() => Promise.all(requests.map((r) => commits.commit(wire(r))))),
    ).toEqual([
      'ledger_commit_append_on_head',
      'begin',
      'ledger_commit_lock_head',
      'ledger_commit_journals',
      'ledger_commit_stored_objects',
      'ledger_commit_append_tool_keep_head',
      'ledger_commit_append_tool_keep_head',
      'ledger_commit_append_tool_keep_head',
      'ledger_commit_append_tool_keep_head',
      'ledger_commit_append_tool',
      'ledger_tree_extend',
      'commit',
    ]);
  });

  it('retries a commit of a claim given up once, in a second transaction, and refuses it', async () => {
    const id = 'mcp:ep-count:ended';
    const claim = await journal.begin({
      invocationId: id,
      requestHash: 'a'.repeat(64),
      ttlMs: CLAIM_TTL_MS,
    });
    await journal.end({ invocationId: id, reason: 'abandoned' });
    const call = toolCall(id, { ended: 1 });
    const request = { ...call.request, claimToken: (claim as { claimToken: string }).claimToken };
    const refusedTx = ['begin', 'ledger_commit_lock_head', 'ledger_commit_append_tool', 'rollback'];
    expect(await statementsOf(() => commits.commit(wire(request)).catch(() => undefined))).toEqual([
      'ledger_commit_append_on_head',
      ...refusedTx,
      ...refusedTx,
    ]);
  });

  it('commits a REST commit without an invocation id in one transaction', async () => {
    const rest = restCommit(await head(), 'count-plain');
    expect(await statementsOf(() => commits.restCommit(wire(rest)))).toEqual([
      'begin',
      'ledger_commit_lock_head',
      'ledger_commit_append_none',
      'ledger_tree_extend',
      'commit',
    ]);
  });

  it('journals a REST commit’s intent, then commits it; a resend replays in one read', async () => {
    const rest = restCommit(await head(), 'count-intent', 'rest:count-1');
    expect(await statementsOf(() => commits.restCommit(wire(rest)))).toEqual([
      'begin',
      'ledger_commit_lock_journal',
      'ledger_commit_read_head',
      'ledger_commit_insert_rest_intent',
      'commit',
      'begin',
      'ledger_commit_lock_head',
      'ledger_commit_append_rest',
      'ledger_tree_extend',
      'commit',
    ]);
    expect(await statementsOf(() => commits.restCommit(wire(rest)))).toEqual([
      'begin',
      'ledger_commit_lock_journal',
      'commit',
    ]);
  });

  it('publishes a registry head with its objects in one transaction', async () => {
    const object = makeJsonObject('world/approvals/v1', 'operator', { approvals: ['count'] });
    const archived = makeJsonObject('world/transition-source/v1', 'operator', { src: 'count' });
    expect(
      await statementsOf(() =>
        registry.publish(
          wire({
            name: 'world/approvals/v1',
            object: toWireObject(object),
            objects: [toWireObject(archived)],
          }),
        ),
      ),
    ).toEqual([
      'begin',
      'insert into ledger.objects',
      'insert into ledger.registry_heads',
      'commit',
    ]);
  });

  it('claims an id in a transaction (a taken id read under its lock), and reads, ends and receipts without one', async () => {
    const id = 'mcp:ep-count:claim';
    const begin = { invocationId: id, requestHash: 'b'.repeat(64), ttlMs: CLAIM_TTL_MS };
    expect(await statementsOf(() => journal.begin(begin))).toEqual([
      'begin',
      'insert into ledger.commit_journal',
      'commit',
    ]);
    expect(await statementsOf(() => journal.begin(begin))).toEqual([
      'begin',
      'insert into ledger.commit_journal',
      'select journal.kind, journal.state,',
      'commit',
    ]);
    expect(await statementsOf(() => journal.get({ invocationId: id }))).toEqual([
      'select journal.kind, journal.state,',
    ]);
    expect(
      await statementsOf(() => journal.end({ invocationId: id, reason: 'abandoned' })),
    ).toEqual(['update ledger.commit_journal set']);
    expect(
      await statementsOf(() => journal.receipt({ scope: READ_ALL, invocationId: 'rest:count-1' })),
    ).toEqual([
      'select journal.kind, journal.state,',
      'select ref, revision,',
      'select entry_index, entry_hash,',
    ]);
  });

  it('announces every entry it wrote, once, in order', () => {
    expect(events.map((e) => e.invocationId)).toEqual([
      'mcp:ep-count:cold',
      'mcp:ep-count:warm',
      'mcp:ep-count:backoff',
      ...Array.from({ length: 7 }, (_, i) => `mcp:ep-count:skip${i}`),
      'mcp:ep-count:warm-again',
      'mcp:ep-count:carrier',
      'mcp:ep-count:leaning',
      ...Array.from({ length: 5 }, (_, i) => `mcp:ep-count:g${i}`),
      'mcp:ep-count:g-stored',
      null,
      'rest:count-1',
    ]);
  });
});
