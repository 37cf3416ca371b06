/**
 * `ledger.timeline` and `ledger.timeline.unrecorded` (issue 15 "Timeline"): pages of the timeline
 * index (table `ledger.timeline`, migration 0003_workbench_timeline: one row per entry, written by
 * a trigger in the entry's own transaction, backfilled for existing logs) newest first by cursor,
 * every filter answered by an index; and the tool calls claimed but never committed.
 *
 * Visibility (DESIGN.md §3): a confined scope sees every row's index, time and surface (the
 * skeleton), but episode, tool, outcome and reason only of its own episode's rows (and the
 * genesis); a filter on episode, tool or outcome matches only its own rows, so a filter never
 * tells one episode what another did. Unrecorded calls of other episodes are not listed at all.
 */
import { Inject, Injectable } from '@nestjs/common';
import type {
  ParsedRequestOf,
  ReplyOf,
  TimelineRateRow,
  TimelineRow,
  UnrecordedRow,
} from '@world/contracts';
import { DATABASE, type DatabaseHandle } from '@world/runtime';
import { storedRef } from '../db/statements.js';

/** ISO 8601 UTC with milliseconds, as PostgreSQL formats a timestamptz column. */
const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

interface IndexRow {
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

interface JournalRow {
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

/** The timeline index's reads; they never lock and never write. */
@Injectable()
export class TimelineRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /**
   * One page of indexed entries below `before`, newest first, at most `limit` rows, with the
   * cursor of the next page (the last row's index when an older row matches, else null).
   */
  async page(request: ParsedRequestOf<'ledger.timeline'>): Promise<ReplyOf<'ledger.timeline'>> {
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
    const confined =
      request.episode !== undefined || request.tool !== undefined || request.outcome !== undefined;
    if (own !== null && confined) w.add('t.episode_id = $?', own);
    const limit = w.param(request.limit + 1);
    const { rows } = await this.database.query<IndexRow>(
      `SELECT t.entry_index, e.entry_hash, ${iso('t.committed_at')} AS committed_at, t.surface, t.episode_id,
              t.tool, t.outcome, t.reason, t.invocation_id, ${visible} AS visible
         FROM ledger.timeline t JOIN ledger.log_entries e ON e.entry_index = t.entry_index
        WHERE ${w.text}
        ORDER BY t.entry_index DESC
        LIMIT ${limit}`,
      w.params,
    );
    const more = rows.length > request.limit;
    const items = rows.slice(0, request.limit).map(toTimelineRow);
    return { items, next: more ? items[items.length - 1]!.entryIndex : null };
  }

  /** See timelineRate. */
  rate(request: ParsedRequestOf<'ledger.timeline.rate'>): Promise<ReplyOf<'ledger.timeline.rate'>> {
    return timelineRate(this.database, request);
  }

  /**
   * One page of tool calls claimed and never committed (journal rows of kind tool not in state
   * committed), newest claim first, keyset-paged on (claim time, invocation id).
   */
  async unrecorded(
    request: ParsedRequestOf<'ledger.timeline.unrecorded'>,
  ): Promise<ReplyOf<'ledger.timeline.unrecorded'>> {
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
    const limit = w.param(request.limit + 1);
    const { rows } = await this.database.query<JournalRow>(
      `SELECT j.invocation_id, j.episode_id, j.state, j.end_reason,
              ${iso('j.created_at')} AS claimed_at, ${iso('j.updated_at')} AS updated_at,
              to_char(j.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00'
                AS cursor_at
         FROM ledger.commit_journal j
        WHERE ${w.text}
        ORDER BY j.created_at DESC, j.invocation_id DESC
        LIMIT ${limit}`,
      w.params,
    );
    const more = rows.length > request.limit;
    const page = rows.slice(0, request.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => ({
        invocationId: r.invocation_id,
        episodeId: r.episode_id,
        state: r.state,
        endReason: r.end_reason,
        claimedAt: r.claimed_at,
        updatedAt: r.updated_at,
      })),
      next: more && last !== undefined ? `${last.cursor_at}|${last.invocation_id}` : null,
    };
  }
}

/**
 * Committed entries per minute and outcome over the last `minutes` minutes (the Overview's
 * chart), by the index on commit time. A confined scope sees other episodes' entries as `hidden`.
 */
export async function timelineRate(
  database: DatabaseHandle,
  request: ParsedRequestOf<'ledger.timeline.rate'>,
): Promise<ReplyOf<'ledger.timeline.rate'>> {
  const own = request.scope.kind === 'episode' ? request.scope.episodeId : null;
  const outcome =
    own === null
      ? 't.outcome'
      : `CASE WHEN t.episode_id = $2 OR t.surface = 'genesis' THEN t.outcome ELSE 'hidden' END`;
  const { rows } = await database.query<{ minute: string; outcome: string; entries: string }>(
    `WITH w AS (SELECT date_trunc('minute', now()) - ($1::int - 1) * interval '1 minute' AS since)
     SELECT ${iso("date_trunc('minute', t.committed_at)")} AS minute, ${outcome} AS outcome,
            count(*) AS entries
       FROM ledger.timeline t, w
      WHERE t.committed_at >= w.since
      GROUP BY 1, 2
      ORDER BY 1, 2`,
    own === null ? [request.minutes] : [request.minutes, own],
  );
  const { rows: clock } = await database.query<{ now: string }>(`SELECT ${iso('now()')} AS now`);
  return {
    now: clock[0]!.now,
    items: rows.map((r) => ({
      minute: r.minute,
      outcome: r.outcome as TimelineRateRow['outcome'],
      entries: Number(r.entries),
    })),
  };
}

function toTimelineRow(r: IndexRow): TimelineRow {
  return {
    entryIndex: Number(r.entry_index),
    entryHash: storedRef(r.entry_hash),
    committedAt: r.committed_at,
    surface: r.surface,
    visible: r.visible,
    episodeId: r.visible ? r.episode_id : null,
    tool: r.visible ? r.tool : null,
    outcome: r.visible ? r.outcome : null,
    reason: r.visible ? r.reason : null,
    invocationId: r.visible ? r.invocation_id : null,
  };
}
