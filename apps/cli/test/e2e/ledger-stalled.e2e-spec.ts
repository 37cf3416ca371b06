/**
 * A ledger stopped (SIGSTOP, not killed) between the statements of its commit transaction — after
 * BEGIN, the head and journal row locks and the append, before the tree's extension and COMMIT —
 * and kept stopped past the call's deadline (world-internals §5.5: a commit given up on must not
 * land later; DESIGN.md §2; world-spec §4.5, §6.5). Every World PostgreSQL session runs with
 * `idle_in_transaction_session_timeout` (packages/runtime/src/database.ts), so PostgreSQL ends the
 * stopped transaction: its locks free for the other ledger and its late COMMIT is refused.
 *
 * On `world up` (one gateway, planner, broker and ledger) with `WORLD_PAUSEPOINT=inside-commit`,
 * every process real, on the test PostgreSQL and a NATS server of this suite that drops a stopped
 * client within seconds (fast-ping-nats.ts):
 * - the ledger stops itself at its first commit, a keyed `ailang-edit` of episode A (A2A
 *   `tasks/send`, MCP with `_meta["world/taskId"]`); the planner gives the commit up at the
 *   deadline and answers `effects were requested …` with the effect record, for good;
 * - a second ledger process (not armed) serves while the first is still stopped: calls of episode
 *   B commit — they would wait on the stopped transaction's head lock without the timeout;
 * - the stopped ledger is resumed: nothing of A's invocation ever lands (no journal outcome, no
 *   timeline row, no entry), every resend still names the record, the log stays dense and
 *   hash-linked (`world why head` verifies), spend equals the intents, A's file was edited once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually, startNode, type TestProcess } from '@world/testing';
import { replicaEnv, serviceEntry } from '../../src/system/up.js';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { startFastPingNats, type FastPingNats } from '../support/fast-ping-nats.js';
import { invocationIdOf, KEYED_CASES } from '../support/keyed-surfaces.js';
import { startUpWorld, type JsonRpcAnswer, type UpWorld } from '../support/up-world.js';

/**
 * NATS drops the stopped ledger some 7 s after it stopped (three unanswered pings), well before
 * the planner gives the claim up (about DEADLINE_MS after the call began): the give-up finds no
 * ledger, so nothing of it waits unread in the stopped ledger, and the claim stays as it was
 * until it lapses.
 */
const DEADLINE_MS = 16_000;
const UNRECORDED = 'effects were requested but the invocation was not confirmed committed';
const WRITE = [{ effect: 'Workspace.Write', scope: 'worktree', budget: 50 }];
const edit = (old_text: string, new_text: string) => ({ path: 'count.txt', old_text, new_text });
/** A's journal row and timeline once given up: claimed, lapsed, no entry. */
const GIVEN_UP = {
  journal: { state: 'claimed', end_reason: null, entry_index: null, lapsed: true },
  timeline: 0,
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a ledger SIGSTOPped inside its commit transaction, past the deadline (world up)', () => {
  let nats: FastPingNats;
  let w: UpWorld;
  /** the second ledger, started while the first is stopped */
  let helper: TestProcess | undefined;

  beforeAll(async () => {
    requireBuiltCli();
    nats = await startFastPingNats();
    w = await startUpWorld('lstalled', 'gateway=1,planner=1,broker=1,ledger=1', DEADLINE_MS, {
      NATS_URL: nats.url,
      WORLD_PAUSEPOINT: 'inside-commit',
      WORLD_ORPHAN_SWEEP_MS: '1000',
    });
  }, 120_000);

  // The next case needs the armed ledger fresh (its pause point fires once), and alone.
  afterEach(async () => {
    await stopHelper();
    const armed = ledger();
    if (armed === undefined) return;
    armed.child.kill('SIGCONT');
    armed.child.kill('SIGTERM');
    await armed.exited;
    await w.up.respawn(armed.replica).ready;
  }, 60_000);

  afterAll(async () => {
    await w?.close();
    await nats?.stop();
  }, 60_000);

  const ledger = () => w?.up.processes.find((p) => p.service === 'ledger');
  const stopHelper = async () => {
    if (helper === undefined) return;
    helper.kill('SIGTERM');
    await helper.exited;
    helper = undefined;
  };
  /** Starts the second ledger, not armed, as replica ledger-2. */
  const startHelper = async () => {
    helper = startNode(serviceEntry('ledger'), [], {
      ...replicaEnv('ledger-2', w.up.env, { healthPort: 0 }),
      WORLD_PAUSEPOINT: '',
    });
    await helper.waitForLine(/"msg":"ready"/, 30_000);
  };
  /** Whether process `pid` is stopped (state T in /proc/<pid>/stat). */
  const isStopped = async (pid: number) =>
    (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.startsWith('T');
  const commitSubscribers = () => nats.subscribers(`${w.env.WORLD_SUBJECT_PREFIX}.ledger.commit`);
  /** The states of ledger-1's PostgreSQL sessions that hold a transaction open. */
  const openTransactions = async () =>
    (
      await w.q<{ state: string }>(
        `SELECT state FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'world-ledger-1'
            AND xact_start IS NOT NULL`,
      )
    ).map((r) => r.state);
  const recordsOf = async (invocationId: string) => {
    const { items } = await w.rpc.request(
      'broker.effect.byInvocation',
      { invocationId },
      { timeoutMs: 5_000 },
    );
    return items.map((i) => [i.effect, i.status, i.recordRef]);
  };
  /** What the ledger holds of `invocationId`: its journal row and its timeline rows. */
  const ledgerRows = async (invocationId: string) => ({
    journal: await w.journalRow(invocationId, ['state', 'end_reason', 'entry_index', 'lapsed']),
    timeline: (
      await w.q<{ n: number }>(
        `SELECT count(*)::int AS n FROM ledger.timeline WHERE invocation_id = $1`,
        [invocationId],
      )
    )[0]!.n,
  });
  /** The log's shape: entries, whether the indexes are dense from 0, and the broken links. */
  const logShape = async () =>
    (
      await w.q<{ entries: number; dense: boolean; broken: number }>(
        `SELECT count(*)::int AS entries,
                (count(*) = max(entry_index) + 1 AND min(entry_index) = 0) AS dense,
                (SELECT count(*)::int FROM ledger.log_entries e
                   JOIN ledger.log_entries p ON p.entry_index = e.entry_index - 1
                  WHERE e.prev_entry_hash <> p.entry_hash) AS broken
           FROM ledger.log_entries`,
      )
    )[0];
  /** Episode `ep`'s log entries: [invocation id, entry index, entry index again]. */
  const entriesOf = async (ep: string) =>
    (
      await w.q<{ id: string; i: number }>(
        `SELECT invocation_id AS id, entry_index::int AS i FROM ledger.timeline
          WHERE episode_id = $1 ORDER BY entry_index`,
        [ep],
      )
    ).map((r) => [r.id, r.i, r.i]);
  /** ledger-1's lines about `invocationId`, as distinct [msg, error message] pairs. */
  const resumedLines = (invocationId: string) => [
    ...new Map(
      w.lines
        .filter(
          (l) => l.replica === 'ledger-1' && l.line.includes(`"invocationId":"${invocationId}"`),
        )
        .map((l) => {
          const r = JSON.parse(l.line) as { msg: string; err?: { message?: string } };
          return [`${r.msg}\n${r.err?.message}`, [r.msg, r.err?.message]] as const;
        }),
    ).values(),
  ];
  const intentsOf = async (ep: string) =>
    (
      await w.q<{ n: number }>(
        `SELECT count(*)::int AS n FROM broker.effect_intents WHERE episode_id = $1`,
        [ep],
      )
    )[0]!.n;
  const sweepLines = (invocationId: string) =>
    w.lines
      .filter(
        (l) =>
          l.line.includes('effect outcome whose invocation never committed') &&
          l.line.includes(`"${invocationId}"`),
      )
      .map((l) => {
        const r = JSON.parse(l.line) as Record<string, unknown>;
        return [l.replica, r.invocationId, r.episodeId, r.effectRecords];
      });
  /** `world why head` as a process, with the operator credential: exit, stderr, first and last line. */
  const whyHead = async () => {
    const r = await runCli(['why', 'head'], {
      WORLD_URL: w.up.gateways[0],
      WORLD_HOME: w.env.WORLD_HOME,
    });
    const out = r.stdout.split('\n').filter((l) => l !== '');
    return [r.code, r.stderr, out[0], out.at(-1)];
  };

  it.each(KEYED_CASES)(
    '%s: the stopped commit never lands, resends name the record, other episodes commit within the pause',
    async (_name, surface, index) => {
      const epA = `ep-a-${index}`;
      const epB = `ep-b-${index}`;
      const invocationId = invocationIdOf(surface, epA, 't1');
      const a = await w.episode(epA, { 'count.txt': 'a' }, WRITE);
      const b = await w.episode(epB, { 'count.txt': 'b' }, WRITE);
      const sendA = () => surface.send(w, a.token, 't1', 'ailang-edit', edit('a', 'ab'));
      const sendB = (task: string, from: string, to: string) =>
        surface.send(w, b.token, task, 'ailang-edit', edit(from, to));
      const stopped = ledger()!;
      expect(await commitSubscribers()).toBe(1);

      // A's commit reaches the only ledger, which stops itself inside the transaction.
      const first = sendA();
      await eventually(
        async () => ((await isStopped(stopped.child.pid!)) ? true : undefined),
        20_000,
        'the ledger stopped inside its commit',
      );
      expect(await openTransactions()).toEqual(['idle in transaction']);
      expect(await readFile(join(a.worktree, 'count.txt'), 'utf8')).toBe('ab');
      const records = await recordsOf(invocationId);
      expect(records).toEqual([
        ['Workspace.Write', 'succeeded', expect.stringMatching(/^sha256:[0-9a-f]{64}$/)],
      ]);
      const record = records[0]![2]!;
      const unrecorded: JsonRpcAnswer = {
        jsonrpc: '2.0',
        id: surface.id,
        error: { code: -32603, message: `${UNRECORDED}; effect records: ${record}` },
      };
      expect(await first).toEqual(unrecorded);

      // A second ledger serves while the first is still stopped, once NATS dropped the first.
      await eventually(
        async () => ((await commitSubscribers()) === 0 ? true : undefined),
        20_000,
        'NATS dropping the stopped ledger',
      );
      await startHelper();
      await eventually(
        async () => ((await ledgerRows(invocationId)).journal?.lapsed ? true : undefined),
        20_000,
        "A's claim lapsed",
      );
      expect(await sendA()).toEqual(unrecorded);
      expect(await ledgerRows(invocationId)).toEqual(GIVEN_UP);
      // Episode B commits: PostgreSQL ended the stopped transaction, freeing the head's lock.
      const b1 = await sendB('t1', 'b', 'bc');
      const b2 = await sendB('t2', 'bc', 'bcd');
      expect([b1.error, b2.error]).toEqual([undefined, undefined]);
      expect(await isStopped(stopped.child.pid!)).toBe(true);
      expect(await openTransactions()).toEqual([]);
      expect(await readFile(join(b.worktree, 'count.txt'), 'utf8')).toBe('bcd');

      // Resumed: its COMMIT is refused, it serves again, and nothing of A ever lands.
      stopped.child.kill('SIGCONT');
      await eventually(
        () => (resumedLines(invocationId).length > 0 ? true : undefined),
        20_000,
        'the resumed commit refused',
      );
      expect(resumedLines(invocationId)).toEqual([
        [
          'unexpected error in a message handler',
          'terminating connection due to idle-in-transaction timeout',
        ],
      ]);
      await eventually(
        async () => ((await commitSubscribers()) === 2 ? true : undefined),
        20_000,
        'the resumed ledger back on NATS',
      );
      expect(await sendA()).toEqual(unrecorded);
      const b3 = await sendB('t3', 'bcd', 'bcde');
      const b4 = await sendB('t4', 'bcde', 'bcdef');
      expect([b3.error, b4.error]).toEqual([undefined, undefined]);
      expect(await sendA()).toEqual(unrecorded);
      // The broker's sweep names A once, however many sweeps ran.
      await eventually(
        () => (sweepLines(invocationId).length > 0 ? true : undefined),
        30_000,
        'the sweep line',
      );
      await sleep(3_000);
      expect(sweepLines(invocationId)).toEqual([['broker-1', invocationId, epA, [record]]]);
      expect(await sendA()).toEqual(unrecorded);

      expect(await ledgerRows(invocationId)).toEqual(GIVEN_UP);
      const bFirst = surface.entryOf(b1)!;
      expect(await entriesOf(epB)).toEqual(
        [b1, b2, b3, b4].map((answer, i) => [
          invocationIdOf(surface, epB, `t${i + 1}`),
          bFirst + i,
          surface.entryOf(answer),
        ]),
      );
      expect(await readFile(join(a.worktree, 'count.txt'), 'utf8')).toBe('ab');
      expect(await readFile(join(b.worktree, 'count.txt'), 'utf8')).toBe('bcdef');
      expect([await intentsOf(epA), await intentsOf(epB)]).toEqual([1, 4]);
      expect(await w.spent(epA)).toEqual([['Workspace.Write', 1]]);
      expect(await w.spent(epB)).toEqual([['Workspace.Write', 4]]);
      expect(await logShape()).toEqual({ entries: bFirst + 4, dense: true, broken: 0 });
      expect(await whyHead()).toEqual([
        0,
        '',
        `why: entry ${bFirst + 3} (the head)`,
        'all 8 link(s) verified',
      ]);
    },
    180_000,
  );
});
