/**
 * Who reads and writes what in the ledger (DESIGN.md §3 "Who may read and write what"), and the
 * re-hash of every read that serves stored data (world-internals §2.2 step 5.4), on real
 * PostgreSQL and NATS. Tampering changes rows in PostgreSQL itself.
 */
import pg from 'pg';
import {
  entryHash,
  refOf,
  toWireObject,
  worldRef,
  type LogEntry,
  type Ref,
} from '@world/canonical';
import {
  BadRequestError,
  NotFoundError,
  READ_ALL,
  StoredObjectCorruptError,
  WorldError,
  episodeOfInvocationId,
  type ReadScope,
} from '@world/contracts';
import { captureLogs, connectRpc, openPostgres, type RpcClient } from '@world/runtime';
import { createTestDatabase, testNatsUrl, uniquePrefix, type TestDatabase } from '@world/testing';
import { startLedger } from '../../src/index.js';
import { genesis } from '../../src/genesis/genesis.js';
import { writerEpisodeOf } from '../writer-episode.js';
import { RPC_TIMEOUT_MS, restCommit, toolCall, type HeadView } from '../support.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const G = genesis();
const scope = (episodeId: string): ReadScope => ({ kind: 'episode', episodeId });

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

describe('ledger ownership and re-hashed reads (PostgreSQL + NATS)', () => {
  let tdb: TestDatabase;
  let sql: pg.Client;
  let client: RpcClient;
  let close: () => Promise<void>;

  const head = async (): Promise<HeadView> => {
    const reply = await client.request('ledger.head', {}, opts);
    return {
      worldRef: reply.worldRef!,
      entryIndex: reply.entryIndex!,
      entryHash: reply.world!.logHead,
      revision: reply.world!.revision,
    };
  };
  const object = (ref: Ref, readScope: ReadScope, payload = true) =>
    client.request('ledger.object.get', { ref, payload, scope: readScope }, opts);

  beforeAll(async () => {
    tdb = await createTestDatabase('ledger_trust');
    const database = await openPostgres(tdb.url);
    const transport = { kind: 'nats', url: testNatsUrl(), prefix: uniquePrefix('trust') } as const;
    const ledger = await startLedger({ transport, database, replica: 'ledger-trust' });
    client = await connectRpc(transport, 'ledger-trust-client');
    sql = new pg.Client({ connectionString: tdb.url });
    await sql.connect();
    close = async () => {
      await sql.end();
      await client.close();
      await ledger.close();
      await database.close();
      await tdb.drop();
    };
  });
  afterAll(async () => {
    await close?.();
  });

  const toolOfT = toolCall('mcp:ep-t:call-1', { path: 'secret.txt' }, { ok: true, secret: 't' });
  let restOfR: ReturnType<typeof restCommit>;

  it('files a tool entry under its invocation id’s episode and a REST entry under its writtenBy’s (the columns agree with the laws)', async () => {
    const tool = await client.request('ledger.commit', toolOfT.request, opts);
    restOfR = restCommit(await head(), 'r', 'rest:ep-r:r1', { kind: 'episode', episodeId: 'ep-r' });
    await client.request('ledger.restCommit', restOfR, opts);
    const operator = restCommit(await head(), 'op');
    await client.request('ledger.restCommit', operator, opts);
    const { rows: entries } = await sql.query<{
      entry_index: string;
      written_by: string;
      writer_episode: string | null;
    }>(
      'SELECT entry_index, written_by, writer_episode FROM ledger.log_entries ORDER BY entry_index',
    );
    expect(entries.map((e) => [Number(e.entry_index), e.written_by, e.writer_episode])).toEqual([
      [0, 'ledger:genesis', null],
      [tool.entryIndex, 'coordinator:mcp', null],
      [tool.entryIndex + 1, 'episode:ep-r/quickstart', 'ep-r'],
      [tool.entryIndex + 2, 'operator/quickstart', null],
    ]);
    for (const e of entries) expect(e.writer_episode).toBe(writerEpisodeOf(e.written_by));
    const { rows: journal } = await sql.query<{ invocation_id: string; episode_id: string | null }>(
      'SELECT invocation_id, episode_id FROM ledger.commit_journal ORDER BY invocation_id',
    );
    expect(journal).toEqual([
      { invocation_id: 'mcp:ep-t:call-1', episode_id: 'ep-t' },
      { invocation_id: 'rest:ep-r:r1', episode_id: null },
    ]);
    expect(episodeOfInvocationId('mcp:ep-t:call-1')).toBe('ep-t');
  });

  it('serves an object to the episodes whose entries carry it, the operator, and — for published objects — everyone', async () => {
    const [input, record] = [toolOfT.input.hash, toolOfT.record.hash];
    const stateOfR = { ...restOfR.objects[0]!, hash: restOfR.objects[0]!.hash as Ref };
    await expect(object(input, scope('ep-t'))).resolves.toEqual(toWireObject(toolOfT.input));
    await expect(object(input, READ_ALL)).resolves.toEqual(toWireObject(toolOfT.input));
    await expect(object(stateOfR.hash, scope('ep-r'))).resolves.toEqual(stateOfR);
    for (const [ref, reader] of [
      [input, 'ep-r'],
      [record, 'ep-u'],
      [stateOfR.hash, 'ep-t'],
    ] as const) {
      const err = await refusal(object(ref, scope(reader), false));
      expect([ref, reader, err]).toEqual([ref, reader, new NotFoundError('object not found')]);
    }
    // The genesis object and the epoch registry (published: no entry but genesis carries them).
    await expect(object(G.object.hash, scope('ep-u'))).resolves.toEqual(toWireObject(G.object));
    await expect(object(G.epochRegistry.hash, scope('ep-u'))).resolves.toEqual(
      toWireObject(G.epochRegistry),
    );
    const list = (reader: ReadScope) =>
      client.request(
        'ledger.objects.bySemanticId',
        { scope: reader, semanticId: 'world/invocation-input/v1', limit: 500 },
        opts,
      );
    expect((await list(scope('ep-t'))).items.map((o) => o.hash)).toEqual([input]);
    expect((await list(scope('ep-u'))).items).toEqual([]);
    expect((await list(READ_ALL)).items.map((o) => o.hash)).toEqual([input]);
  });

  it('serves a receipt only to the episode its id is filed under, and to the operator', async () => {
    const resolved = {
      invocationId: 'rest:ep-r:r1',
      state: 'resolved',
      resultRef: restOfR.nextWorld.ref,
    };
    const receipt = (readScope: ReadScope, invocationId = 'rest:ep-r:r1') =>
      client.request('ledger.receipt.get', { invocationId, scope: readScope }, opts);
    await expect(receipt(scope('ep-r'))).resolves.toEqual(resolved);
    await expect(receipt(READ_ALL)).resolves.toEqual(resolved);
    expect(await refusal(receipt(scope('ep-t')))).toEqual(new NotFoundError('receipt not found'));
    await expect(receipt(scope('ep-t'), 'rest:ep-t:never')).resolves.toEqual({
      invocationId: 'rest:ep-t:never',
      state: 'not-started',
    });
  });

  it('refuses a REST commit whose entry points at a stored invocation record, writing nothing', async () => {
    const before = await head();
    const body = restCommit(before, 'present', undefined, { kind: 'episode', episodeId: 'ep-r' });
    // A REST entry presenting ep-t's invocation record as its own body (hash laws kept).
    const header = body.entry.header as LogEntry['header'];
    const hash = entryHash(header, toolOfT.record.hash);
    const shape = {
      revision: before.revision + 1,
      stateRoot: body.nextWorld.stateRoot as Ref,
      logHead: hash,
    };
    const request = {
      ...body,
      nextWorld: { ref: worldRef(shape), ...shape },
      entry: { header, entryHash: hash, transitionRef: toolOfT.record.hash },
    };
    expect(await refusal(client.request('ledger.restCommit', request, opts))).toEqual(
      new BadRequestError(
        "entry.transitionRef: world/invocation-record/v1 objects are written only by World's tool calls (coordinator, broker, ledger), not by POST /v1/commit",
      ),
    );
    expect(await head()).toEqual(before);
  });

  it('reports where a start-up integrity scan stopped when its row budget ended, newest first (world-spec §2.18)', async () => {
    const logs = captureLogs('info');
    const database = await openPostgres(tdb.url);
    const transport = {
      kind: 'nats',
      url: testNatsUrl(),
      prefix: uniquePrefix('trust-scan'),
    } as const;
    try {
      const replica = await startLedger({
        transport,
        database,
        replica: 'ledger-scan',
        integrityBudget: { maxRows: 4, budgetMs: 60_000 },
      });
      const report = await replica.integrity.done;
      await replica.close();
      // Entries #3 and #2 (half the rows), then two of the four objects they carried.
      const resume =
        'entries below #2 and the objects only they carried; objects carried by entries #2..#3 after the newest checked; the published objects';
      expect(report).toEqual({
        state: 'clean',
        scanned: 4,
        mismatches: 0,
        problems: [],
        complete: false,
        resume,
      });
      expect(
        logs.records
          .filter((l) => String(l.msg).startsWith('integrity'))
          .map((l) => [l.msg, l.service, l.scanned, l.resume]),
      ).toEqual([['integrity_scan_incomplete', 'ledger', 4, resume]]);
    } finally {
      logs.stop();
      await database.close();
    }
  });

  it('refuses to serve an object, an entry, a world, the head or a replayed output whose stored bytes no longer hash to their ref, and logs each', async () => {
    const logs = captureLogs('info');
    try {
      const output = toolOfT.output.hash;
      const { rows } = await sql.query<{ payload: Buffer }>(
        `UPDATE ledger.objects SET payload = set_byte(payload, 2, 79) WHERE hash = $1 RETURNING payload`,
        [output],
      );
      const objectProblem = `object ${output} has bytes that hash to ${refOf(rows[0]!.payload)}`;
      const corrupt = new StoredObjectCorruptError(objectProblem);
      expect(await refusal(object(output, READ_ALL))).toEqual(corrupt);
      expect(
        await refusal(
          client.request('ledger.invocation.get', { invocationId: 'mcp:ep-t:call-1' }, opts),
        ),
      ).toEqual(corrupt);
      // Without the payload nothing stored is served: the envelope still answers.
      await expect(object(output, READ_ALL, false)).resolves.toMatchObject({ hash: output });

      const current = await head();
      const { rows: worlds } = await sql.query<{ ref: string }>(
        `UPDATE ledger.worlds SET state_root = $1 WHERE ref = $2 RETURNING ref`,
        [refOf('elsewhere'), current.worldRef],
      );
      expect(worlds).toHaveLength(1);
      const worldError = await refusal(
        client.request('ledger.world.get', { ref: current.worldRef }, opts),
      );
      expect(worldError).toBeInstanceOf(StoredObjectCorruptError);
      expect(await refusal(client.request('ledger.head', {}, opts))).toEqual(worldError);

      await sql.query(`UPDATE ledger.log_entries SET semantics_epoch = 7 WHERE entry_index = 1`);
      const entryError = await refusal(client.request('ledger.log.entry', { index: 1 }, opts));
      expect(entryError).toBeInstanceOf(StoredObjectCorruptError);
      expect(entryError.message).toMatch(
        /^stored object corrupt: log entry 1 \(sha256:[0-9a-f]{64}\) has fields that hash to sha256:[0-9a-f]{64}$/,
      );
      expect(
        await refusal(client.request('ledger.log.range', { from: 0, limit: 10 }, opts)),
      ).toEqual(entryError);
      // Asked flagged (the workbench), the entry is served marked with the problem, never as
      // valid; its neighbours unmarked.
      const problem = (entryError as StoredObjectCorruptError).problem;
      const flagged = await client.request('ledger.log.entry', { index: 1, flagged: true }, opts);
      expect(flagged.corrupt).toBe(problem);
      expect(flagged.header.semanticsEpoch).toBe(7);
      const page = await client.request(
        'ledger.log.range',
        { from: 0, limit: 10, flagged: true },
        opts,
      );
      expect(page.items.map((e) => [e.header.entryIndex, e.corrupt ?? null])).toEqual([
        [0, null],
        [1, problem],
        ...page.items.slice(2).map((e) => [e.header.entryIndex, null]),
      ]);
      expect(page.items.length).toBeGreaterThan(1);
      const lines = logs.records.filter((l) => l.msg === 'stored object corrupt');
      expect(lines.map((l) => [l.service, l.problem])).toEqual([
        ['ledger', objectProblem],
        ['ledger', objectProblem],
        ['ledger', (worldError as StoredObjectCorruptError).problem],
        ['ledger', (worldError as StoredObjectCorruptError).problem],
        ['ledger', problem],
        ['ledger', problem],
        ['ledger', problem],
        ['ledger', problem],
      ]);
    } finally {
      logs.stop();
    }
  });
});
