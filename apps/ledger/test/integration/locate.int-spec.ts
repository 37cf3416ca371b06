/**
 * `ledger.log.locate` (migration 0007_entry_refs): the entry a `world why` target names, found by
 * index at any depth — every ref an invocation's record names (input, output, plan, effect record,
 * its request and result), the record itself and the invocation id — the newest entry winning, a
 * confined scope finding only entries whose record it may read; the trigger keeps the rows on
 * both commit paths (lone one-statement commits and group transactions) and the migration
 * backfills a log written before it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeJsonObject, toWireObject, type WorldObject } from '@world/canonical';
import { READ_ALL, type ReadScope, type RefRole, type RequestOf } from '@world/contracts';
import { connectRpc, type RpcClient, type RunningService } from '@world/runtime';
import { startLedger } from '../../src/index.js';
import { LEDGER_MIGRATIONS_FOLDER } from '../../src/constants.js';
import { INTERPRETER, MODES, RPC_TIMEOUT_MS, TRANSITION_FN, type ModeSetup } from '../support.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
/** Entries committed above the first one before it is looked up. */
const DEPTH = 650;
const CLIENTS = 8;

/** One tool call's objects: the record names input, output, plan and one effect record. */
function call(episode: string, task: string, input: WorldObject) {
  const writer = 'coordinator:mcp';
  const invocationId = `mcp:${episode}:${task}`;
  const request = makeJsonObject('world/effect-request/v1', 'host/broker', { task, path: 'a' });
  const result = makeJsonObject('world/effect-result/v1', 'host/broker', { task, ok: true });
  const effect = makeJsonObject('world/effect-record/v1', 'host/broker', {
    allowed: true,
    requestRef: request.hash,
    resultRef: result.hash,
  });
  const plan = makeJsonObject('world/effect-plan/v1', writer, { task, effects: [] });
  const output = makeJsonObject('world/invocation-output/v1', writer, { task, ok: true });
  const record = makeJsonObject('world/invocation-record/v2', writer, {
    invocationId,
    episodeId: episode,
    skillId: 'read_file',
    input: input.hash,
    output: output.hash,
    plan: plan.hash,
    effects: [effect.hash],
  });
  const commit: RequestOf<'ledger.commit'> = {
    invocationId,
    writtenBy: writer,
    semanticsEpoch: 1,
    transitionFn: TRANSITION_FN,
    interpreter: INTERPRETER,
    transitionRef: record.hash,
    stateRoot: output.hash,
    objects: [input, request, result, effect, plan, output, record].map(toWireObject),
  };
  return { commit, invocationId, input, request, result, effect, plan, output, record };
}

describe.each(MODES)('ledger.log.locate over %s', (_mode, setupMode) => {
  let setup: ModeSetup;
  let ledger: RunningService;
  let client: RpcClient;
  const shared = makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', { path: 'a' });
  const first = call('ep-a', 't1', shared);
  const second = call('ep-b', 't2', shared);
  const ep = (id: string): ReadScope => ({ kind: 'episode', episodeId: id });
  const byRef = async (ref: string, roles: RefRole[], scope: ReadScope = READ_ALL) =>
    (await client.request('ledger.log.locate', { scope, ref, roles }, opts)).entryIndex;
  const byId = async (invocationId: string, scope: ReadScope = READ_ALL) =>
    (await client.request('ledger.log.locate', { scope, invocationId }, opts)).entryIndex;
  /** #1's refs by role, as the lookup answers each for the operator. */
  const firstRefs = async () => ({
    record: await byRef(first.record.hash, ['record']),
    output: await byRef(first.output.hash, ['output']),
    plan: await byRef(first.plan.hash, ['plan']),
    effect: await byRef(first.effect.hash, ['effect']),
    request: await byRef(first.request.hash, ['request']),
    result: await byRef(first.result.hash, ['result']),
    invocation: await byId(first.invocationId),
  });
  const ONE = { record: 1, output: 1, plan: 1, effect: 1, request: 1, result: 1, invocation: 1 };

  beforeAll(async () => {
    setup = await setupMode();
    ledger = await startLedger({
      transport: setup.transport,
      database: setup.database,
      replica: 'locate-test',
    });
    client = await connectRpc(setup.transport, 'locate-test-client');
    await client.request('ledger.commit', first.commit, opts);
    await client.request('ledger.commit', second.commit, opts);
    // Concurrent clients: group transactions as well as lone one-statement commits.
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < DEPTH) {
          const n = next++;
          const other = makeJsonObject('world/invocation-input/v1', 'coordinator:mcp', { n });
          await client.request('ledger.commit', call('ep-z', `deep${n}`, other).commit, opts);
        }
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await ledger?.close();
    await setup?.teardown();
  });

  it(`finds every ref of entry #1 below ${DEPTH + 1} newer entries, exactly`, async () => {
    const head = await client.request('ledger.head', {}, opts);
    expect(head.entryIndex).toBe(DEPTH + 2);
    expect(await firstRefs()).toEqual(ONE);
    expect(await byRef(first.output.hash, ['record', 'input', 'output', 'plan'])).toBe(1);
  });

  it('answers null for a ref in another role and for an id never committed', async () => {
    expect(await byRef(first.output.hash, ['input', 'plan', 'effect'])).toBeNull();
    expect(await byRef(first.record.hash, ['input'])).toBeNull();
    expect(await byId('mcp:ep-a:never')).toBeNull();
  });

  it('gives the newest entry naming a ref, among those the scope may read', async () => {
    expect(await byRef(shared.hash, ['input'])).toBe(2);
    expect(await byRef(shared.hash, ['input'], ep('ep-a'))).toBe(1);
    expect(await byRef(shared.hash, ['input'], ep('ep-b'))).toBe(2);
    expect(await byRef(shared.hash, ['input'], ep('ep-z'))).toBeNull();
  });

  it("never finds another episode's entry by its payload's refs; a record by its public header", async () => {
    expect(await byRef(first.output.hash, ['output'], ep('ep-b'))).toBeNull();
    expect(await byRef(first.result.hash, ['result'], ep('ep-b'))).toBeNull();
    expect(await byId(first.invocationId, ep('ep-b'))).toBeNull();
    expect(await byId(first.invocationId, ep('ep-a'))).toBe(1);
    expect(await byRef(first.record.hash, ['record'], ep('ep-b'))).toBe(1);
  });

  it('backfills a log written before the migration', async () => {
    const q = setup.database.query;
    await q('DROP TRIGGER log_entries_refs ON ledger.log_entries');
    await q('DROP FUNCTION ledger.entry_refs_append(), ledger.entry_refs_of(bigint, text)');
    await q('DROP TABLE ledger.entry_refs');
    await q('DROP INDEX ledger.timeline_by_invocation_id');
    const sql = readFileSync(join(LEDGER_MIGRATIONS_FOLDER, '0007_entry_refs.sql'), 'utf8');
    for (const statement of sql.split('--> statement-breakpoint'))
      if (statement.trim() !== '') await q(statement);
    expect(await firstRefs()).toEqual(ONE);
    const { rows } = await q<{ n: string }>('SELECT count(*) AS n FROM ledger.entry_refs');
    // input, output, plan, effect, request, result for each of the DEPTH + 2 calls
    expect(Number(rows[0]!.n)).toBe(6 * (DEPTH + 2));
  });
});
