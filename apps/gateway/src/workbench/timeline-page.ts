/**
 * The Timeline page (DESIGN.md §5a): the log newest first, one page of at most TIMELINE_PAGE_MAX
 * rows below a cursor (`before`), filtered by episode, tool, outcome, surface and commit time.
 * Every filter is answered by the ledger's timeline index (`ledger.timeline`, written in each
 * entry's own transaction), so a filter whose only matches are old entries still finds them; the
 * outcome `unrecorded` lists the calls claimed and never committed (`ledger.timeline.unrecorded`).
 */
import {
  READ_DEADLINE_MS,
  type ReadScope,
  type TimelineRow,
  type UnrecordedRow,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { shortRef } from '@world/why';
import { html, type Html } from './html.js';
import {
  filterQuery,
  liveOff,
  OUTCOMES,
  SURFACES,
  timelineHref,
  type TimelineQuery,
} from './timeline-query.js';

export { parseRowsQuery, parseTimelineQuery } from './timeline-query.js';

/** One page of the timeline, as read. */
export type TimelinePage =
  | {
      kind: 'entries';
      rows: TimelineRow[];
      /** the head's index, null before genesis */
      headIndex: number | null;
      /** the cursor of the next (older) page, null when no older row matches */
      next: number | null;
    }
  | { kind: 'unrecorded'; rows: UnrecordedRow[]; headIndex: number | null; next: string | null };

/** The filters of a query as the ledger's request fields (absent when empty). */
function filters(q: TimelineQuery) {
  return {
    ...(q.episode === '' ? {} : { episode: q.episode }),
    ...(q.since === '' ? {} : { since: q.since }),
    ...(q.until === '' ? {} : { until: q.until }),
  };
}

/**
 * Reads one page from the ledger's timeline index in the caller's scope.
 * @throws the ledger's errors (BadRequestError for an episode id that is not one)
 */
export async function readTimeline(
  rpc: RpcClient,
  scope: ReadScope,
  q: TimelineQuery,
): Promise<TimelinePage> {
  const opts = { timeoutMs: READ_DEADLINE_MS };
  const head = await rpc.request('ledger.head', {}, opts);
  const headIndex = head.entryIndex;
  if (q.outcome === 'unrecorded') {
    const reply = await rpc.request(
      'ledger.timeline.unrecorded',
      { scope, limit: q.limit, ...(q.before === null ? {} : { before: q.before }), ...filters(q) },
      opts,
    );
    return { kind: 'unrecorded', rows: reply.items, headIndex, next: reply.next };
  }
  const reply = await rpc.request(
    'ledger.timeline',
    {
      scope,
      limit: q.limit,
      ...(q.before === null ? {} : { before: Number(q.before) }),
      ...entryFilters(q),
    },
    opts,
  );
  return { kind: 'entries', rows: reply.items, headIndex, next: reply.next };
}

/** The entry filters of a query as the ledger's request fields (absent when empty). */
function entryFilters(q: TimelineQuery) {
  return {
    ...filters(q),
    ...(q.tool === '' ? {} : { tool: q.tool }),
    ...(q.outcome === '' ? {} : { outcome: q.outcome as TimelineRow['outcome'] & string }),
    ...(q.surface === '' ? {} : { surface: q.surface as TimelineRow['surface'] }),
  };
}

/**
 * The rows of entries `from`…`from + 99` (oldest first) that match the page's filters, in the
 * caller's scope: what the live script inserts (the same rows the page itself would show).
 * @throws the ledger's errors
 */
export async function readRowsFrom(
  rpc: RpcClient,
  scope: ReadScope,
  from: number,
  q: TimelineQuery,
): Promise<TimelineRow[]> {
  const reply = await rpc.request(
    'ledger.timeline',
    { scope, limit: 100, before: from + 100, ...entryFilters(q) },
    { timeoutMs: READ_DEADLINE_MS },
  );
  return reply.items.filter((r) => r.entryIndex >= from).reverse();
}

/** A commit time as the page shows it (`YYYY-MM-DD HH:MM:SS` UTC), `-` when unknown. */
function timeText(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** One table row (also what the live script inserts, built from the same cells server-side). */
export function rowHtml(row: TimelineRow): Html {
  const outcome =
    row.outcome === null
      ? html`<span class="muted">not visible</span>`
      : html`<span class="outcome ${row.outcome}">${row.outcome}</span>${
            row.reason === null ? '' : html` <span class="reason">${row.reason}</span>`
          }`;
  return html`<tr data-index="${row.entryIndex}">
    <td><a href="/workbench/entry/${row.entryIndex}">#${row.entryIndex}</a></td>
    <td><time datetime="${row.committedAt ?? ''}">${timeText(row.committedAt)}</time></td>
    <td>${row.surface}</td>
    <td>
      ${
        row.episodeId === null
          ? html`<span class="muted">-</span>`
          : html`<a href="/workbench/episodes/${encodeURIComponent(row.episodeId)}"
              >${row.episodeId}</a
            >`
      }
    </td>
    <td>${row.tool ?? '-'}</td>
    <td>${outcome}</td>
    <td><code>${shortRef(row.entryHash)}</code></td>
  </tr>`;
}

/** Entries as the timeline shows them, newest first: one rowHtml each (the Episode page's too). */
export function entriesTable(id: string, rows: TimelineRow[]): Html {
  return html`<table id="${id}">
    <thead>
      <tr>
        <th>index</th>
        <th>time (UTC)</th>
        <th>surface</th>
        <th>episode</th>
        <th>tool</th>
        <th>outcome</th>
        <th>entry hash</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(rowHtml)}
    </tbody>
  </table>`;
}

function unrecordedHtml(row: UnrecordedRow): Html {
  return html`<tr>
    <td>
      <a href="/workbench/why?target=${encodeURIComponent(row.invocationId)}"
        >${row.invocationId}</a
      >
    </td>
    <td><time datetime="${row.claimedAt}">${timeText(row.claimedAt)}</time></td>
    <td>${row.episodeId ?? '-'}</td>
    <td>
      ${row.state === 'claimed' ? 'claimed, not committed' : `ended: ${row.endReason ?? '-'}`}
    </td>
    <td><time datetime="${row.updatedAt}">${timeText(row.updatedAt)}</time></td>
  </tr>`;
}

function select(name: string, value: string, options: readonly string[]): Html {
  return html`<select name="${name}" id="f-${name}">
    <option value="">any</option>
    ${options.map((o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`)}
  </select>`;
}

/** The filter form, filled with the query. */
function form(q: TimelineQuery): Html {
  const local = (iso: string) => iso.slice(0, 19);
  return html`<form method="get" action="/workbench" class="filters">
    <label for="f-episode">episode</label>
    <input id="f-episode" name="episode" value="${q.episode}" /> <label for="f-tool">tool</label>
    <input id="f-tool" name="tool" value="${q.tool}" />
    <label for="f-outcome">outcome</label> ${select('outcome', q.outcome, OUTCOMES)}
    <label for="f-surface">surface</label> ${select('surface', q.surface, SURFACES)}
    <label for="f-since">since (UTC)</label>
    <input id="f-since" name="since" type="datetime-local" step="1" value="${local(q.since)}" />
    <label for="f-until">until</label>
    <input id="f-until" name="until" type="datetime-local" step="1" value="${local(q.until)}" />
    <button type="submit">Filter</button> <a href="/workbench">clear</a>
  </form>`;
}

/** The page's body. */
export function timelineBody(page: TimelinePage, q: TimelineQuery, checkedAt: string): Html {
  const off = liveOff(q);
  const status = `${
    page.headIndex === null
      ? 'no entries yet'
      : `checked ${checkedAt}, newest entry #${page.headIndex}`
  }${off === null ? '' : `; live updates off: ${off}`}`;
  const live = off === null ? 'on' : 'off';
  const table =
    page.kind === 'unrecorded'
      ? html`<p class="scanned">
            calls claimed and never committed (no log entry), newest claim first:
            ${page.rows.length} shown
          </p>
          <table id="unrecorded">
            <thead>
              <tr>
                <th>invocation id</th>
                <th>claimed</th>
                <th>episode</th>
                <th>state</th>
                <th>last change</th>
              </tr>
            </thead>
            <tbody>
              ${page.rows.map(unrecordedHtml)}
            </tbody>
          </table>`
      : entriesTable('timeline', page.rows);
  return html`${form(q)}
    <p
      id="live"
      role="status"
      data-head="${page.headIndex ?? -1}"
      data-live="${live}"
      data-filters="${filterQuery(q)}"
    >
      ${status}
    </p>
    ${table}
    <p class="paging">
      ${
        q.before === null ? '' : html`<a href="${timelineHref(q, null)}">newest</a> `
      }${page.next === null ? '' : html`<a href="${timelineHref(q, page.next)}" rel="next">older</a>`}
    </p>`;
}
