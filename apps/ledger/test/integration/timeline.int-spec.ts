/**
 * The timeline index (migration 0003_workbench_timeline): every committed
 * entry gets its row in its own transaction, counted in the per-minute rollups
 * (0006_timeline_minutes) the rate reads, filters and cursors are answered by the index, a
 * confined scope sees only its own episode's fields, unrecorded calls are listed from the
 * journal, and the migration backfills a log written before it. Both run modes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeJsonObject, toWireObject, type WorldObject } from '@world/canonical';
import { READ_ALL, type ReadScope, type RequestOf, type TimelineRow } from '@world/contracts';
import { connectRpc, type RpcClient, type RunningService } from '@world/runtime';
import { startLedger } from '../../src/index.js';
import { LEDGER_MIGRATIONS_FOLDER } from '../../src/constants.js';
import {
  INTERPRETER,
  MODES,
  RPC_TIMEOUT_MS,
  TRANSITION_FN,
  restCommit,
  type HeadView,
  type ModeSetup,
} from '../support.js';

const opts = { timeoutMs: RPC_TIMEOUT_MS };
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Entries of the deep-filter test: the filter's only matches sit below all of them. */
const DEEP = 1_200;
const DEEP_CLIENTS = 8;

/** A coordinator commit of `skillId` in `episode` whose output is `output` (+ extra objects). */
function call(
  surface: 'mcp' | 'a2a',
  episode: string,
  task: string,
  skillId: string,
  output: unknown,
  extra: WorldObject[] = [],
): RequestOf<'ledger.commit'> {
  const writer = `coordinator:${surface}`;
  const invocationId = `${surface}:${episode}:${task}`;
  const input = makeJsonObject('world/invocation-input/v1', writer, { task });
  const out = makeJsonObject('world/invocation-output/v1', writer, output);
  const record = makeJsonObject('world/invocation-record/v2', writer, {
    invocationId,
    episodeId: episode,
    skillId,
    input: input.hash,
    output: out.hash,
  });
  return {
    invocationId,
    writtenBy: writer,
    semanticsEpoch: 1,
    transitionFn: TRANSITION_FN,
    interpreter: INTERPRETER,
    transitionRef: record.hash,
    stateRoot: out.hash,
    objects: [input, out, record, ...extra].map(toWireObject),
  };
}

/** An effect record that denied (world-spec §2.8) and the output naming it. */
function denied(task: string): RequestOf<'ledger.commit'> {
  const record = makeJsonObject('world/effect-record/v1', 'world-broker', {
    allowed: false,
    denial: 'budget_exhausted',
  });
  return call(
    'mcp',
    'ep-b',
    task,
    'write_file',
    { ok: true, world: { effects: [{ status: 'denied', record: record.hash }] } },
    [record],
  );
}

/** The row fields a test pins exactly (committedAt is checked for form and order). */
const shape = (r: TimelineRow) => [
  r.entryIndex,
  r.surface,
  r.visible,
  r.episodeId,
  r.tool,
  r.outcome,
  r.reason,
  r.invocationId,
];

describe.each(MODES)('timeline index over %s', (mode, setupMode) => {
  let setup: ModeSetup;
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
  const timeline = (
    query: Partial<RequestOf<'ledger.timeline'>> = {},
    scope: ReadScope = READ_ALL,
  ) => client.request('ledger.timeline', { scope, limit: 100, ...query }, opts);
  const episodeScope = (id: string): ReadScope => ({ kind: 'episode', episodeId: id });
  const rate = (scope: ReadScope, minutes = 10) =>
    client.request('ledger.timeline.rate', { scope, minutes }, opts);
  /**
   * The rate counted straight from the timeline's rows (the read before the rollups): the oracle
   * the rollup-backed read must equal row for row.
   */
  const counted = async (scope: ReadScope, minutes = 10) => {
    const own = scope.kind === 'episode' ? scope.episodeId : null;
    const { rows } = await setup.database.query<{
      minute: string;
      outcome: string;
      entries: string;
    }>(
      `SELECT to_char(date_trunc('minute', t.committed_at, 'UTC') AT TIME ZONE 'UTC',
                      'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS minute,
              CASE WHEN $2::text IS NULL OR t.episode_id = $2 OR t.surface = 'genesis'
                   THEN t.outcome ELSE 'hidden' END AS outcome,
              count(*) AS entries
         FROM ledger.timeline t
        WHERE t.committed_at >= date_trunc('minute', now(), 'UTC') - ($1::int - 1) * interval '1 minute'
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [minutes, own],
    );
    return rows.map((r) => ({ minute: r.minute, outcome: r.outcome, entries: Number(r.entries) }));
  };
  /** The rollups' rows against the timeline's own counts, as [minute, episode, outcome, entries]. */
  const rollups = async () => {
    const q = setup.database.query;
    const minute = `to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')`;
    const all = await q<{ row: string }>(
      `SELECT ${minute} || ' * ' || outcome || ' ' || entries AS row
         FROM ledger.timeline_minutes ORDER BY 1`,
    );
    const episodes = await q<{ row: string }>(
      `SELECT ${minute} || ' ' || episode_id || ' ' || outcome || ' ' || entries AS row
         FROM ledger.timeline_episode_minutes ORDER BY 1`,
    );
    const tminute = `to_char(date_trunc('minute', committed_at, 'UTC') AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')`;
    const fromRows = await q<{ row: string }>(
      `SELECT row FROM (
         SELECT ${tminute} || ' * ' || outcome || ' ' || count(*) AS row
           FROM ledger.timeline WHERE committed_at IS NOT NULL GROUP BY ${tminute}, outcome
         UNION ALL
         SELECT ${tminute} || ' ' || episode_id || ' ' || outcome || ' ' || count(*)
           FROM ledger.timeline WHERE committed_at IS NOT NULL AND episode_id IS NOT NULL
          GROUP BY ${tminute}, episode_id, outcome) r ORDER BY 1`,
    );
    return {
      rollups: [...all.rows, ...episodes.rows].map((r) => r.row).sort(),
      rows: fromRows.rows.map((r) => r.row).sort(),
    };
  };

  beforeAll(async () => {
    setup = await setupMode();
    ledger = await startLedger({
      transport: setup.transport,
      database: setup.database,
      replica: 'timeline-test',
    });
    client = await connectRpc(setup.transport, 'timeline-test-client');
    await client.request(
      'ledger.commit',
      call('mcp', 'ep-a', 't1', 'read_file', { ok: true }),
      opts,
    );
    await client.request(
      'ledger.commit',
      call('mcp', 'ep-a', 't2', 'write_file', { ok: false, refused: 'path escapes the worktree' }),
      opts,
    );
    await client.request('ledger.commit', denied('t3'), opts);
    await client.request(
      'ledger.commit',
      call('mcp', 'ep-b', 't4', 'run', {
        ok: true,
        world: { effects: [{ status: 'failed', record: 'x' }] },
      }),
      opts,
    );
    await client.request(
      'ledger.commit',
      call('a2a', 'ep-a', 't5', 'edit_file', { ok: true }),
      opts,
    );
    await client.request(
      'ledger.restCommit',
      restCommit(await head(), 'r', 'rest:ep-a:r1', { kind: 'episode', episodeId: 'ep-a' }),
      opts,
    );
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await ledger?.close();
    await setup?.teardown();
  });

  it('indexes every entry in its commit, newest first, with its commit time', async () => {
    const page = await timeline();
    expect(page.items.map(shape)).toEqual([
      [6, 'rest', true, 'ep-a', null, 'ok', null, null],
      [5, 'a2a', true, 'ep-a', 'edit_file', 'ok', null, 'a2a:ep-a:t5'],
      [4, 'mcp', true, 'ep-b', 'run', 'failed', null, 'mcp:ep-b:t4'],
      [3, 'mcp', true, 'ep-b', 'write_file', 'denied', 'budget_exhausted', 'mcp:ep-b:t3'],
      [2, 'mcp', true, 'ep-a', 'write_file', 'refused', 'path escapes the worktree', 'mcp:ep-a:t2'],
      [1, 'mcp', true, 'ep-a', 'read_file', 'ok', null, 'mcp:ep-a:t1'],
      [0, 'genesis', true, null, null, 'ok', null, null],
    ]);
    expect(page.next).toBeNull();
    const times = page.items.map((r) => r.committedAt!);
    for (const t of times) expect(t).toMatch(ISO_MS);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('answers each filter and pages by cursor', async () => {
    const indexes = async (q: Partial<RequestOf<'ledger.timeline'>>) =>
      (await timeline(q)).items.map((r) => r.entryIndex);
    expect(await indexes({ episode: 'ep-b' })).toEqual([4, 3]);
    expect(await indexes({ tool: 'write_file' })).toEqual([3, 2]);
    expect(await indexes({ outcome: 'ok' })).toEqual([6, 5, 1, 0]);
    expect(await indexes({ outcome: 'refused' })).toEqual([2]);
    expect(await indexes({ surface: 'a2a' })).toEqual([5]);
    expect(await indexes({ episode: 'ep-a', outcome: 'ok', surface: 'mcp' })).toEqual([1]);
    const all = (await timeline()).items;
    // times are cut to milliseconds: since includes entry 3, until excludes entry 6
    expect(await indexes({ since: all[3]!.committedAt!, until: all[0]!.committedAt! })).toEqual([
      5, 4, 3,
    ]);
    const first = await timeline({ limit: 3 });
    expect(first.items.map((r) => r.entryIndex)).toEqual([6, 5, 4]);
    expect(first.next).toBe(4);
    const second = await timeline({ limit: 3, before: 4 });
    expect(second.items.map((r) => r.entryIndex)).toEqual([3, 2, 1]);
    expect(second.next).toBe(1);
    const third = await timeline({ limit: 3, before: 1 });
    expect(third.items.map((r) => r.entryIndex)).toEqual([0]);
    expect(third.next).toBeNull();
  });

  it('shows a session only its own episode, and filters only its own rows', async () => {
    const ep = (id: string): ReadScope => ({ kind: 'episode', episodeId: id });
    const page = await timeline({}, ep('ep-b'));
    expect(page.items.map(shape)).toEqual([
      [6, 'rest', false, null, null, null, null, null],
      [5, 'a2a', false, null, null, null, null, null],
      [4, 'mcp', true, 'ep-b', 'run', 'failed', null, 'mcp:ep-b:t4'],
      [3, 'mcp', true, 'ep-b', 'write_file', 'denied', 'budget_exhausted', 'mcp:ep-b:t3'],
      [2, 'mcp', false, null, null, null, null, null],
      [1, 'mcp', false, null, null, null, null, null],
      [0, 'genesis', true, null, null, 'ok', null, null],
    ]);
    expect((await timeline({ episode: 'ep-a' }, ep('ep-b'))).items).toEqual([]);
    expect(
      (await timeline({ tool: 'write_file' }, ep('ep-b'))).items.map((r) => r.entryIndex),
    ).toEqual([3]);
    expect((await timeline({ surface: 'mcp' }, ep('ep-b'))).items.map((r) => r.entryIndex)).toEqual(
      [4, 3],
    );
    expect((await timeline({ surface: 'a2a' }, ep('ep-b'))).items).toEqual([]);
    const all = (await timeline()).items;
    const since = all[6]!.committedAt!;
    expect((await timeline({ since }, ep('ep-b'))).items.map((r) => r.entryIndex)).toEqual([4, 3]);
    expect(
      (await timeline({ until: all[0]!.committedAt! }, ep('ep-a'))).items.map((r) => r.entryIndex),
    ).toEqual([5, 2, 1]);
  });

  it('counts entries per minute and outcome; a session sees the others as hidden', async () => {
    const totals = async (scope: ReadScope) => {
      const reply = await client.request('ledger.timeline.rate', { scope, minutes: 10 }, opts);
      expect(reply.now).toMatch(ISO_MS);
      for (const r of reply.items)
        expect(r.minute).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
      const by: Record<string, number> = {};
      for (const r of reply.items) by[r.outcome] = (by[r.outcome] ?? 0) + r.entries;
      return by;
    };
    expect(await totals(READ_ALL)).toEqual({ ok: 4, refused: 1, denied: 1, failed: 1 });
    expect(await totals({ kind: 'episode', episodeId: 'ep-b' })).toEqual({
      ok: 1,
      denied: 1,
      failed: 1,
      hidden: 4,
    });
    for (const scope of [READ_ALL, ...['ep-a', 'ep-b', 'ep-none'].map(episodeScope)])
      expect((await rate(scope)).items).toEqual(await counted(scope));
  });

  it('keeps per-minute counts of every entry and of each episode, equal to the rows', async () => {
    const { rollups: kept, rows } = await rollups();
    expect(kept).toEqual(rows);
    // 7 entries: the genesis and 6 commits, all in this run's minutes
    const total = (list: string[]) =>
      list.filter((r) => r.includes(' * ')).reduce((n, r) => n + Number(r.split(' ').pop()), 0);
    expect(total(kept)).toBe(7);
    // per episode and outcome, summed over the minutes the commits fell in
    const byEpisode: Record<string, number> = {};
    for (const r of kept.filter((k) => !k.includes(' * '))) {
      const [, , episode, outcome, n] = r.split(' ');
      byEpisode[`${episode} ${outcome}`] = (byEpisode[`${episode} ${outcome}`] ?? 0) + Number(n);
    }
    expect(byEpisode).toEqual({
      'ep-a ok': 3,
      'ep-a refused': 1,
      'ep-b denied': 1,
      'ep-b failed': 1,
    });
  });

  it('lists claims that never committed as unrecorded', async () => {
    await client.request(
      'ledger.invocation.begin',
      { invocationId: 'mcp:ep-a:lost', requestHash: 'a'.repeat(64), ttlMs: 60_000 },
      opts,
    );
    await client.request(
      'ledger.invocation.begin',
      { invocationId: 'mcp:ep-b:gone', requestHash: 'b'.repeat(64), ttlMs: 60_000 },
      opts,
    );
    await client.request(
      'ledger.invocation.end',
      { invocationId: 'mcp:ep-b:gone', reason: 'uncertain' },
      opts,
    );
    const all = await client.request(
      'ledger.timeline.unrecorded',
      { scope: READ_ALL, limit: 100 },
      opts,
    );
    expect(all.items.map((r) => [r.invocationId, r.episodeId, r.state, r.endReason])).toEqual([
      ['mcp:ep-b:gone', 'ep-b', 'ended', 'uncertain'],
      ['mcp:ep-a:lost', 'ep-a', 'claimed', null],
    ]);
    expect(all.next).toBeNull();
    const one = await client.request(
      'ledger.timeline.unrecorded',
      { scope: READ_ALL, limit: 1 },
      opts,
    );
    expect(one.items.map((r) => r.invocationId)).toEqual(['mcp:ep-b:gone']);
    const rest = await client.request(
      'ledger.timeline.unrecorded',
      { scope: READ_ALL, limit: 1, before: one.next! },
      opts,
    );
    expect(rest.items.map((r) => r.invocationId)).toEqual(['mcp:ep-a:lost']);
    expect(rest.next).toBeNull();
    const mine = await client.request(
      'ledger.timeline.unrecorded',
      { scope: { kind: 'episode', episodeId: 'ep-a' }, limit: 100 },
      opts,
    );
    expect(mine.items.map((r) => r.invocationId)).toEqual(['mcp:ep-a:lost']);
  });

  it('backfills a log written before the migration, time from the journal', async () => {
    const before = (await timeline()).items;
    const q = setup.database.query;
    await q('DROP TRIGGER log_entries_timeline ON ledger.log_entries');
    await q(
      'DROP FUNCTION ledger.timeline_append(), ledger.timeline_describe(bigint, text, text), ledger.timeline_json(bytea)',
    );
    await q('DROP TABLE ledger.timeline');
    await q('DROP INDEX ledger.commit_journal_unrecorded');
    await q('DROP TABLE ledger.timeline_minutes, ledger.timeline_episode_minutes');
    await q('DROP FUNCTION ledger.timeline_count()');
    // Re-run the timeline migration's and its rollups' own statements over the existing log
    // (other migrations stay applied): this is what they did to a log written before them.
    for (const file of ['0003_workbench_timeline.sql', '0006_timeline_minutes.sql']) {
      const sql = readFileSync(join(LEDGER_MIGRATIONS_FOLDER, file), 'utf8');
      for (const statement of sql.split('--> statement-breakpoint')) {
        if (statement.trim() !== '') await q(statement);
      }
    }
    const after = (await timeline()).items;
    expect(after.map(shape)).toEqual(before.map(shape));
    // the genesis has no journal row: its time is unknown after a backfill
    expect(after.map((r) => r.committedAt === null)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
    for (const r of after.slice(0, 6)) expect(r.committedAt).toMatch(ISO_MS);
    // the rollups backfilled from the rows: the genesis, now timeless, is in no minute
    const { rollups: kept, rows } = await rollups();
    expect(kept).toEqual(rows);
    expect(
      kept.filter((r) => r.includes(' * ')).reduce((n, r) => n + Number(r.split(' ').pop()), 0),
    ).toBe(6);
    for (const scope of [READ_ALL, episodeScope('ep-b')])
      expect((await rate(scope)).items).toEqual(await counted(scope));
  });

  if (mode === 'PostgreSQL + NATS')
    it(`finds a filter's only (oldest) matches below ${DEEP} newer entries, one page`, async () => {
      const top = (await head()).entryIndex;
      let next = 0;
      await Promise.all(
        Array.from({ length: DEEP_CLIENTS }, async () => {
          while (next < DEEP) {
            const n = next++;
            await client.request(
              'ledger.commit',
              call('mcp', 'ep-z', `deep${n}`, 'list_dir', { ok: true }),
              opts,
            );
          }
        }),
      );
      expect((await head()).entryIndex).toBe(top + DEEP);
      const page = await timeline({ episode: 'ep-b', limit: 100 });
      expect(page.items.map((r) => r.entryIndex)).toEqual([4, 3]);
      expect(page.next).toBeNull();
      const refused = await timeline({ outcome: 'refused', limit: 1 });
      expect(refused.items.map((r) => r.entryIndex)).toEqual([2]);
      const deep = await timeline({ episode: 'ep-z', limit: 100 });
      expect(deep.items.length).toBe(100);
      expect(deep.items[0]!.entryIndex).toBe(top + DEEP);
      expect(deep.next).toBe(top + DEEP - 99);
      // concurrent commits (grouped under one head lock) counted exactly, once each
      const { rollups: kept, rows } = await rollups();
      expect(kept).toEqual(rows);
      const ez = (await rate(episodeScope('ep-z'), 60)).items;
      expect(ez.filter((r) => r.outcome === 'ok').reduce((n, r) => n + r.entries, 0)).toBe(DEEP);
      for (const scope of [READ_ALL, episodeScope('ep-z'), episodeScope('ep-a')])
        expect((await rate(scope, 60)).items).toEqual(await counted(scope, 60));
    }, 120_000);
});
