/**
 * `ledger.timeline`, `ledger.timeline.rate` and `ledger.timeline.unrecorded`: pages of the
 * timeline index newest first by cursor, the Overview's commits per minute, and the tool calls
 * claimed but never committed (timeline.repository.ts reads them). A confined scope sees every
 * row's index, time and surface (the skeleton), but episode, tool, outcome, reason and
 * invocation id only of the rows the repository marks visible (DESIGN.md §3).
 */
import { Injectable } from '@nestjs/common';
import type { ParsedRequestOf, ReplyOf, TimelineRateRow, TimelineRow } from '@world/contracts';
import { storedRef } from '../db/statements.js';
import { TimelineRepository, type IndexRow } from './timeline.repository.js';

/** `ledger.timeline`: one page of the timeline index. */
@Injectable()
export class ReadTimeline {
  constructor(private readonly timeline: TimelineRepository) {}

  /**
   * One page of indexed entries below `before`, newest first, at most `limit` rows, with the
   * cursor of the next page (the last row's index when an older row matches, else null).
   */
  async execute(request: ParsedRequestOf<'ledger.timeline'>): Promise<ReplyOf<'ledger.timeline'>> {
    const rows = await this.timeline.entries(request, request.limit + 1);
    const more = rows.length > request.limit;
    const items = rows.slice(0, request.limit).map(toTimelineRow);
    return { items, next: more ? items[items.length - 1]!.entryIndex : null };
  }
}

/** `ledger.timeline.rate`: committed entries per minute and outcome. */
@Injectable()
export class ReadTimelineRate {
  constructor(private readonly timeline: TimelineRepository) {}

  /** Over the last `minutes` minutes, with the database's clock; others' outcomes `hidden`. */
  async execute(
    request: ParsedRequestOf<'ledger.timeline.rate'>,
  ): Promise<ReplyOf<'ledger.timeline.rate'>> {
    const { now, rows } = await this.timeline.rate(request);
    return {
      now,
      items: rows.map((r) => ({
        minute: r.minute,
        outcome: r.outcome as TimelineRateRow['outcome'],
        entries: Number(r.entries),
      })),
    };
  }
}

/** `ledger.timeline.unrecorded`: one page of the tool calls claimed and never committed. */
@Injectable()
export class ListUnrecorded {
  constructor(private readonly timeline: TimelineRepository) {}

  /**
   * Newest claim first, at most `limit` rows, with the cursor of the next page
   * (`<claim time>|<invocation id>` of the last row when an older one matches, else null).
   */
  async execute(
    request: ParsedRequestOf<'ledger.timeline.unrecorded'>,
  ): Promise<ReplyOf<'ledger.timeline.unrecorded'>> {
    const rows = await this.timeline.unrecorded(request, request.limit + 1);
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

/** An index row as served: details only when visible to the scope. */
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
