/**
 * The only code that reads the timeline index (table `ledger.timeline`, migration
 * 0003_workbench_timeline: one row per entry, written by a trigger in the entry's own
 * transaction, backfilled for existing logs), its per-minute rollups (migration
 * 0006_timeline_minutes, kept by a trigger on the timeline) and the journal's unrecorded calls for
 * read-timeline.ts: newest first by cursor, every filter answered by an index. Reads never lock
 * and never write.
 *
 * Visibility (DESIGN.md §3) is decided here, in SQL: a confined scope's row says whether it is
 * `visible` (its own episode's rows and the genesis); a filter on episode, tool or outcome
 * matches only its own rows, so a filter never tells one episode what another did; unrecorded
 * calls of other episodes are not read at all.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { ParsedRequestOf, TimelineRow, UnrecordedRow } from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';

/** ISO 8601 UTC with milliseconds, as PostgreSQL formats a timestamptz column. */
const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One row of the timeline index, with whether the scope may see its details. */
export interface IndexRow {
  entry_index: string | number;
  entry_hash: string;
  committed_at: string | null;
  surface: TimelineRow['surface'];
  episode_id: string | null;
  tool: string | null;
  outcome: NonNullable<TimelineRow['outcome']>;
  reason: string | null;
  invocation_id: string | null;
  visible: boolean;
}

/** One unrecorded call's journal row, with its keyset cursor time. */
export interface UnrecordedJournalRow {
  invocation_id: string;
  episode_id: string | null;
  state: UnrecordedRow['state'];
  end_reason: string | null;
  claimed_at: string;
  updated_at: string;
  cursor_at: string;
}

/** Conditions and their parameters, numbered as they are added. */
class Where {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];

  /** Adds `condition` with `$?` replaced by the next parameter's number. */
  add(condition: string, ...values: unknown[]): this {
    let text = condition;
    for (const value of values) {
      this.params.push(value);
      text = text.replace('$?', `$${this.params.length}`);
    }
    this.parts.push(text);
    return this;
  }

  /** The next parameter's placeholder, for a value used outside WHERE. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get text(): string {
    return this.parts.length === 0 ? 'TRUE' : this.parts.join(' AND ');
  }
}

/** One minute's count of one outcome, as the rate read returns it. */
export interface RateRow {
  minute: string;
  outcome: string;
  entries: number;
}

/** The rate's rows for the operator: every entry's outcome. */
const RATE_ALL = `r AS (SELECT c.minute, c.outcome, c.entries
         FROM ledger.timeline_minutes c, w WHERE c.minute >= w.since)`;

/**
 * The rate's rows for a session of episode $2: its own entries and the genesis by outcome
 * (the rows the timeline shows it as visible), and each minute's others as `hidden`.
 */
const RATE_CONFINED = `own AS (SELECT c.minute, c.outcome, c.entries
         FROM ledger.timeline_episode_minutes c, w
        WHERE c.episode_id = $2 AND c.minute >= w.since),
      gen AS (SELECT date_trunc('minute', t.committed_at, 'UTC') AS minute, t.outcome, count(*) AS entries
         FROM ledger.timeline t, w
        WHERE t.surface = 'genesis' AND t.committed_at >= w.since AND t.episode_id IS DISTINCT FROM $2
        GROUP BY 1, 2),
      vis AS (SELECT v.minute, v.outcome, sum(v.entries) AS entries
         FROM (SELECT * FROM own UNION ALL SELECT * FROM gen) v GROUP BY 1, 2),
      hid AS (SELECT c.minute, 'hidden' AS outcome,
              sum(c.entries) - coalesce((SELECT sum(v.entries) FROM vis v WHERE v.minute = c.minute), 0)
                AS entries
         FROM ledger.timeline_minutes c, w WHERE c.minute >= w.since GROUP BY c.minute),
      r AS (SELECT * FROM vis UNION ALL SELECT * FROM hid WHERE hid.entries > 0)`;

/** The timeline index's reads; they never lock and never write. */
@Injectable()
export class TimelineRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * Indexed entries below `before` that match the request's filters, newest first, at most
   * `limit` rows.
   */
  async entries(request: ParsedRequestOf<'ledger.timeline'>, limit: number): Promise<IndexRow[]> {
    const w = new Where();
    const own = request.scope.kind === 'episode' ? request.scope.episodeId : null;
    const visible =
      own === null ? 'TRUE' : `(t.episode_id = ${w.param(own)} OR t.surface = 'genesis')`;
    if (request.before !== undefined) w.add('t.entry_index < $?', request.before);
    if (request.episode !== undefined) w.add('t.episode_id = $?', request.episode);
    if (request.tool !== undefined) w.add('t.tool = $?', request.tool);
    if (request.outcome !== undefined) w.add('t.outcome = $?', request.outcome);
    if (request.surface !== undefined) w.add('t.surface = $?', request.surface);
    if (request.since !== undefined) w.add('t.committed_at >= $?::timestamptz', request.since);
    if (request.until !== undefined) w.add('t.committed_at < $?::timestamptz', request.until);
    // any filter of a confined scope matches only its own rows (README "The workbench"): a row of
    // another episode it matched would say that episode called on that surface at that time
    const filtered = (['episode', 'tool', 'outcome', 'surface', 'since', 'until'] as const).some(
      (name) => request[name] !== undefined,
    );
    if (own !== null && filtered) w.add('t.episode_id = $?', own);
    const { rows } = await this.database.query<IndexRow>(
      `SELECT t.entry_index, e.entry_hash, ${iso('t.committed_at')} AS committed_at, t.surface, t.episode_id,
              t.tool, t.outcome, t.reason, t.invocation_id, ${visible} AS visible
         FROM ledger.timeline t JOIN ledger.log_entries e ON e.entry_index = t.entry_index
        WHERE ${w.text}
        ORDER BY t.entry_index DESC
        LIMIT ${w.param(limit)}`,
      w.params,
    );
    return rows;
  }

  /**
   * Tool calls claimed and never committed (journal rows of kind tool not in state committed)
   * that match the request's filters, newest claim first, keyset-paged on (claim time,
   * invocation id), at most `limit` rows.
   */
  async unrecorded(
    request: ParsedRequestOf<'ledger.timeline.unrecorded'>,
    limit: number,
  ): Promise<UnrecordedJournalRow[]> {
    const w = new Where();
    w.add(`j.kind = 'tool'`).add(`j.state <> 'committed'`);
    if (request.scope.kind === 'episode') w.add('j.episode_id = $?', request.scope.episodeId);
    if (request.before !== undefined) {
      const cut = request.before.indexOf('|');
      w.add(
        '(j.created_at, j.invocation_id) < ($?::timestamptz, $?)',
        request.before.slice(0, cut),
        request.before.slice(cut + 1),
      );
    }
    if (request.episode !== undefined) w.add('j.episode_id = $?', request.episode);
    if (request.since !== undefined) w.add('j.created_at >= $?::timestamptz', request.since);
    if (request.until !== undefined) w.add('j.created_at < $?::timestamptz', request.until);
    const { rows } = await this.database.query<UnrecordedJournalRow>(
      `SELECT j.invocation_id, j.episode_id, j.state, j.end_reason,
              ${iso('j.created_at')} AS claimed_at, ${iso('j.updated_at')} AS updated_at,
              to_char(j.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'
                AS cursor_at
         FROM ledger.commit_journal j
        WHERE ${w.text}
        ORDER BY j.created_at DESC, j.invocation_id DESC
        LIMIT ${w.param(limit)}`,
      w.params,
    );
    return rows;
  }

  /**
   * Committed entries per minute and outcome over the last `minutes` minutes (the current minute
   * included), and the database's clock, in one statement. Read from the per-minute rollups
   * (migration 0006_timeline_minutes), which count the timeline's rows exactly: a confined scope's
   * own episode's counts and the genesis's are its visible ones; the rest of each minute's total is
   * `hidden` (a row only when some are). Minutes are UTC.
   */
  async rate(
    request: ParsedRequestOf<'ledger.timeline.rate'>,
  ): Promise<{ now: string; rows: RateRow[] }> {
    const own = request.scope.kind === 'episode' ? request.scope.episodeId : null;
    const { rows } = await this.database.query<{ now: string; rows: RateRow[] }>(
      `WITH w AS (SELECT date_trunc('minute', now(), 'UTC') - ($1::int - 1) * interval '1 minute' AS since),
      ${own === null ? RATE_ALL : RATE_CONFINED}
     SELECT ${iso('now()')} AS now,
            coalesce((SELECT json_agg(json_build_object('minute', ${iso('r.minute')},
                                                        'outcome', r.outcome,
                                                        'entries', r.entries)
                                      ORDER BY r.minute, r.outcome) FROM r), '[]') AS rows`,
      own === null ? [request.minutes] : [request.minutes, own],
    );
    return rows[0]!;
  }
}
