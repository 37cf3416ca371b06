/**
 * What the deployment test reads back after each step, straight from the stack's PostgreSQL (the
 * `ledger` and `broker` schemas) and the shared worktrees volume, and the invariants it checks
 * (world-internals §5.5; DESIGN.md §6 "Crash"): the log dense and hash-linked, one entry per
 * committed call, spend = Σ intents ≤ budget, no effect run twice.
 */
import pg from 'pg';
import { entryHash, GENESIS_PREV_ENTRY_HASH, type Ref } from '@world/canonical';
import { must } from './docker.js';
import { invocationOf, type Answer } from './load.js';

/** A row of a test query: each query names its columns (pg returns bigint as text). */
type Row = Record<string, any>;

/** One log entry as the test checks it. */
export interface Entry {
  index: number;
  hash: string;
  writtenBy: string;
}

/** What one invocation left: its commit journal row and its intents with their outcomes. */
export interface Trace {
  state: string | null;
  entryIndex: number | null;
  /** one per intent, its outcome status or null (no outcome: indeterminate) */
  intents: Array<string | null>;
}

/** A view of the stack's state through its PostgreSQL. */
export class StackState {
  constructor(private readonly sql: pg.Client) {}

  static async connect(host: string, password: string): Promise<StackState> {
    const sql = new pg.Client({ host, port: 5432, user: 'world', database: 'world', password });
    // A stopped PostgreSQL ends the connection; the next step connects anew.
    sql.on('error', () => undefined);
    await sql.connect();
    return new StackState(sql);
  }

  close(): Promise<void> {
    return this.sql.end();
  }

  async q<T = Row>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.sql.query(text, params)).rows as T[];
  }

  /**
   * The whole log, after checking that it is dense from 0 and that every entry links to the one
   * before and hashes to its stored hash (world-spec §2.11; DESIGN.md §7.2).
   * @returns the entries in order; the broken ones fail the calling test
   */
  async checkLog(): Promise<Entry[]> {
    const rows = await this.q(
      'SELECT entry_index, entry_hash, semantics_epoch, transition_fn, interpreter, prev_entry_hash, written_by, transition_ref FROM ledger.log_entries ORDER BY entry_index',
    );
    const broken: string[] = [];
    rows.forEach((r, i) => {
      const prev = i === 0 ? GENESIS_PREV_ENTRY_HASH : rows[i - 1]!.entry_hash;
      const recomputed = entryHash(
        {
          entryIndex: Number(r.entry_index),
          semanticsEpoch: Number(r.semantics_epoch),
          transitionFn: r.transition_fn as Ref,
          interpreter: r.interpreter as Ref,
          prevEntryHash: r.prev_entry_hash as Ref,
          writtenBy: r.written_by,
        },
        r.transition_ref as Ref,
      );
      if (Number(r.entry_index) !== i || r.prev_entry_hash !== prev || recomputed !== r.entry_hash)
        broken.push(`#${r.entry_index}`);
    });
    expect(broken).toEqual([]);
    return rows.map((r) => ({
      index: Number(r.entry_index),
      hash: r.entry_hash as string,
      writtenBy: r.written_by as string,
    }));
  }

  /** The journal row and intents of each invocation id (absent ones: state null, no intents). */
  async traces(ids: string[]): Promise<Map<string, Trace>> {
    const out = new Map<string, Trace>(
      ids.map((id) => [id, { state: null, entryIndex: null, intents: [] }]),
    );
    for (const r of await this.q(
      'SELECT invocation_id, state, entry_index FROM ledger.commit_journal WHERE invocation_id = ANY($1)',
      [ids],
    )) {
      const t = out.get(r.invocation_id)!;
      t.state = r.state;
      t.entryIndex = r.entry_index === null ? null : Number(r.entry_index);
    }
    for (const r of await this.q(
      'SELECT i.invocation_id, o.status FROM broker.effect_intents i LEFT JOIN broker.effect_outcomes o USING (episode_id, ordinal) WHERE i.invocation_id = ANY($1) ORDER BY i.ordinal',
      [ids],
    ))
      out.get(r.invocation_id)!.intents.push(r.status);
    return out;
  }
}

/** What the invariants are checked against: every call answered so far, and the episodes. */
export interface Expectation {
  answers: Answer[];
  /** episode → its grant's budget (calls) */
  budgets: Map<string, number>;
  /** episode → its worktree inside the broker containers */
  worktrees: Map<string, string>;
  /** a running broker container, to read the worktrees volume through */
  broker: string;
}

/**
 * Checks the invariants that hold after every step, whatever faults it injected:
 * every call answered with a result or a documented error (checked by the caller as answers
 * arrive); the log dense and hash-linked; one entry per committed call, and a committed entry for
 * every call answered with a result; spend = Σ intents ≤ budget for each episode; no invocation
 * with two intents, no journal line twice, every line's effect journaled and every succeeded
 * effect's line present.
 * @returns the traces of every invocation, for the step's own assertions
 */
export async function checkInvariants(
  state: StackState,
  exp: Expectation,
): Promise<{ entries: Entry[]; traces: Map<string, Trace> }> {
  const entries = await state.checkLog();
  const ids = exp.answers.map((a) => invocationOf(a.call));
  const traces = await state.traces(ids);

  // One entry per committed call: distinct entries, as many as committed MCP invocations.
  const committed = [...traces.values()].filter((t) => t.state === 'committed');
  const indices = committed.map((t) => t.entryIndex!);
  expect(new Set(indices).size).toBe(committed.length);
  const mcpEntries = entries.filter((e) => e.writtenBy === 'coordinator:mcp').map((e) => e.index);
  expect(indices.sort((a, b) => a - b)).toEqual(mcpEntries);
  // A result means committed; an ok result means its one intent succeeded, a denial none.
  const misanswered = exp.answers
    .filter((a) => a.kind === 'result')
    .map((a) => {
      const t = traces.get(invocationOf(a.call))!;
      const expected = a.status === 'ok' ? ['succeeded'] : [];
      return t.state === 'committed' && JSON.stringify(t.intents) === JSON.stringify(expected)
        ? null
        : { id: a.call.id, status: a.kind === 'result' ? a.status : '', trace: t };
    })
    .filter((x) => x !== null);
  expect(misanswered).toEqual([]);

  // No effect run twice: at most one intent per invocation, in the whole broker schema.
  expect(
    await state.q(
      'SELECT invocation_id FROM broker.effect_intents GROUP BY invocation_id HAVING count(*) > 1',
    ),
  ).toEqual([]);

  const episodes = [...exp.budgets.keys()];
  const spend = new Map(
    (
      await state.q<{ episode_id: string; spent: string }>(
        'SELECT episode_id, spent FROM broker.spend WHERE episode_id = ANY($1)',
        [episodes],
      )
    ).map((r) => [r.episode_id, Number(r.spent)]),
  );
  const intents = new Map(
    (
      await state.q<{ episode_id: string; n: number; invocations: string[]; statuses: string[] }>(
        "SELECT i.episode_id, count(*)::int AS n, array_agg(i.invocation_id) AS invocations, array_agg(coalesce(o.status, '')) AS statuses FROM broker.effect_intents i LEFT JOIN broker.effect_outcomes o USING (episode_id, ordinal) WHERE i.episode_id = ANY($1) GROUP BY i.episode_id",
        [episodes],
      )
    ).map((r) => [r.episode_id, r]),
  );
  for (const e of episodes) {
    const mine = intents.get(e) ?? { n: 0, invocations: [], statuses: [] };
    // Spend = Σ intents ≤ budget.
    expect([e, spend.get(e) ?? 0]).toEqual([e, mine.n]);
    expect([e, mine.n <= exp.budgets.get(e)!]).toEqual([e, true]);
    // The worktree: each line once; each line an invocation with an intent; each succeeded
    // effect's line present.
    const text = await must('docker', [
      'exec',
      exp.broker,
      'cat',
      `${exp.worktrees.get(e)}/journal.txt`,
    ]);
    const lines = text.split('\n').slice(0, -2);
    expect([e, lines.length]).toEqual([e, new Set(lines).size]);
    const withIntent = new Set(mine.invocations);
    expect(lines.filter((id) => !withIntent.has(`mcp:${e}:${id}`))).toEqual([]);
    const succeeded = mine.invocations.filter(
      (id, k) => mine.statuses[k] === 'succeeded' && !id.startsWith(`mcp:${e}:seed-`),
    );
    const present = new Set(lines.map((id) => `mcp:${e}:${id}`));
    expect(succeeded.filter((id) => !present.has(id))).toEqual([]);
  }
  return { entries, traces };
}

/**
 * The invocations among `answers` whose effect was journaled (an intent) but never committed:
 * effects unrecorded (results-and-errors.txt "When the call itself fails").
 */
export function unrecorded(answers: Answer[], traces: Map<string, Trace>): Answer[] {
  return answers.filter((a) => {
    const t = traces.get(invocationOf(a.call))!;
    return t.intents.length > 0 && t.state !== 'committed';
  });
}
