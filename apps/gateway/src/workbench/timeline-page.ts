/**
 * The Timeline page (issue 15): the log newest first, one page of at most TIMELINE_PAGE_MAX rows
 * below a cursor (`before`), filtered by episode, tool, outcome and surface. Filters are applied
 * to the entries as read — at most TIMELINE_SCAN_MAX entries per page — and the page says which
 * indexes it examined, so an empty page is never mistaken for "none exist".
 */
import { BadRequestError } from '@world/contracts';
import { entryIndexOf, shortRef, type Provenance } from '@world/why';
import { html, type Html } from './html.js';
import { describe, OUTCOMES, SURFACES, type Row } from './rows.js';

/** Most rows on one page (issue 15: ≤ 100). */
export const TIMELINE_PAGE_MAX = 100;
/** Rows on a page when `limit` is absent. */
export const TIMELINE_PAGE_DEFAULT = 50;
/** Most entries one page examines while filtering. */
export const TIMELINE_SCAN_MAX = 1000;
/** Entries described at once. */
const CONCURRENCY = 16;

/** The page's query, parsed. */
export interface TimelineQuery {
  before: number | null;
  limit: number;
  episode: string;
  tool: string;
  outcome: string;
  surface: string;
}

const FILTER_TEXT = /^[A-Za-z0-9._:/-]{0,128}$/;

/**
 * Parses the timeline query.
 * @throws BadRequestError naming the parameter that is not well formed
 */
export function parseTimelineQuery(q: Record<string, unknown>): TimelineQuery {
  const one = (name: string): string => {
    const v = q[name];
    if (v === undefined) return '';
    if (typeof v !== 'string') throw new BadRequestError(`${name} must be given once`);
    return v;
  };
  const before = one('before');
  const limit = one('limit');
  if (before !== '' && !/^[0-9]{1,15}$/.test(before))
    throw new BadRequestError('before must be a non-negative integer');
  if (limit !== '' && !/^[0-9]{1,3}$/.test(limit))
    throw new BadRequestError(`limit must be an integer 1..${TIMELINE_PAGE_MAX}`);
  const query: TimelineQuery = {
    before: before === '' ? null : Number(before),
    limit:
      limit === ''
        ? TIMELINE_PAGE_DEFAULT
        : Math.min(Math.max(1, Number(limit)), TIMELINE_PAGE_MAX),
    episode: one('episode'),
    tool: one('tool'),
    outcome: one('outcome'),
    surface: one('surface'),
  };
  for (const name of ['episode', 'tool'] as const)
    if (!FILTER_TEXT.test(query[name])) throw new BadRequestError(`${name} is not a name`);
  if (query.outcome !== '' && !(OUTCOMES as readonly string[]).includes(query.outcome))
    throw new BadRequestError(`outcome must be one of ${OUTCOMES.join(', ')}`);
  if (query.surface !== '' && !(SURFACES as readonly string[]).includes(query.surface))
    throw new BadRequestError(`surface must be one of ${SURFACES.join(', ')}`);
  return query;
}

function matches(row: Row, q: TimelineQuery): boolean {
  return (
    (q.episode === '' || row.episode === q.episode) &&
    (q.tool === '' || row.tool === q.tool) &&
    (q.outcome === '' || row.outcome === q.outcome) &&
    (q.surface === '' || row.surface === q.surface)
  );
}

/** One page of the timeline, as read. */
export interface TimelinePage {
  rows: Row[];
  /** the head's index, null before genesis */
  headIndex: number | null;
  /** the lowest and highest index examined, null when none was */
  scanned: [number, number] | null;
  /** the cursor of the next (older) page, null at the log's start */
  next: number | null;
}

/**
 * Reads one page: entries below `before` (default: all), newest first, until `limit` rows match
 * or TIMELINE_SCAN_MAX entries were examined.
 */
export async function readTimeline(reads: Provenance, q: TimelineQuery): Promise<TimelinePage> {
  const head = await reads.head();
  const headIndex = head === null ? null : entryIndexOf(head);
  const rows: Row[] = [];
  if (headIndex === null) return { rows, headIndex, scanned: null, next: null };
  let top = Math.min(q.before === null ? headIndex : q.before - 1, headIndex);
  const highest = top;
  const lowestAllowed = Math.max(0, highest - TIMELINE_SCAN_MAX + 1);
  while (top >= lowestAllowed && rows.length < q.limit) {
    const from = Math.max(lowestAllowed, top - CONCURRENCY + 1);
    const entries = (await reads.entries(from, top - from + 1)).reverse();
    if (entries.length === 0) break;
    const described = await Promise.all(entries.map((e) => describe(reads, e)));
    for (const row of described) {
      top = row.index - 1;
      if (matches(row, q)) rows.push(row);
      if (rows.length === q.limit) break;
    }
  }
  const scanned: [number, number] | null = top + 1 <= highest ? [top + 1, highest] : null;
  return { rows, headIndex, scanned, next: top >= 0 ? top + 1 : null };
}

/** The query string of a timeline link, with `before` set (or dropped). */
export function timelineHref(q: TimelineQuery, before: number | null): string {
  const params = new URLSearchParams();
  if (before !== null) params.set('before', String(before));
  if (q.limit !== TIMELINE_PAGE_DEFAULT) params.set('limit', String(q.limit));
  for (const name of ['episode', 'tool', 'outcome', 'surface'] as const)
    if (q[name] !== '') params.set(name, q[name]);
  const text = params.toString();
  return text === '' ? '/workbench' : `/workbench?${text}`;
}

/** One table row (also what the live script inserts, built from the same cells server-side). */
export function rowHtml(row: Row): Html {
  const outcome =
    row.outcome === null
      ? html`<span class="muted">not visible</span>`
      : html`<span class="outcome ${row.outcome}">${row.outcome}</span>${
            row.reason === null ? '' : html` <span class="reason">${row.reason}</span>`
          }`;
  return html`<tr data-index="${row.index}">
    <td><a href="/workbench/entry/${row.index}">#${row.index}</a></td>
    <td>${row.surface}</td>
    <td>
      ${
        row.episode === null
          ? html`<span class="muted">-</span>`
          : html`<a href="/workbench/episodes/${encodeURIComponent(row.episode)}"
              >${row.episode}</a
            >`
      }
    </td>
    <td>${row.tool ?? '-'}</td>
    <td>${outcome}</td>
    <td><code>${shortRef(row.entryHash)}</code></td>
  </tr>`;
}

function select(name: string, value: string, options: readonly string[]): Html {
  return html`<select name="${name}" id="f-${name}">
    <option value="">any</option>
    ${options.map((o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`)}
  </select>`;
}

/** The page's body. */
export function timelineBody(page: TimelinePage, q: TimelineQuery, checkedAt: string): Html {
  const filtered = ['episode', 'tool', 'outcome', 'surface'].some(
    (n) => q[n as keyof TimelineQuery] !== '',
  );
  const status =
    page.headIndex === null
      ? 'no entries yet'
      : `checked ${checkedAt}, newest entry #${page.headIndex}`;
  return html`<form method="get" action="/workbench" class="filters">
      <label for="f-episode">episode</label>
      <input id="f-episode" name="episode" value="${q.episode}" /> <label for="f-tool">tool</label>
      <input id="f-tool" name="tool" value="${q.tool}" />
      <label for="f-outcome">outcome</label> ${select('outcome', q.outcome, OUTCOMES)}
      <label for="f-surface">surface</label> ${select('surface', q.surface, SURFACES)}
      <button type="submit">Filter</button> <a href="/workbench">clear</a>
    </form>
    <p
      id="live"
      role="status"
      data-head="${page.headIndex ?? -1}"
      data-live="${q.before === null && !filtered ? 'on' : 'off'}"
    >
      ${status}
    </p>
    <p class="scanned">
      ${
        page.scanned === null
          ? 'no entries examined'
          : `entries #${page.scanned[1]}–#${page.scanned[0]} examined, ${page.rows.length} shown`
      }
    </p>
    <table id="timeline">
      <thead>
        <tr>
          <th>index</th>
          <th>surface</th>
          <th>episode</th>
          <th>tool</th>
          <th>outcome</th>
          <th>entry hash</th>
        </tr>
      </thead>
      <tbody>
        ${page.rows.map(rowHtml)}
      </tbody>
    </table>
    <p class="paging">
      ${
        q.before === null ? '' : html`<a href="${timelineHref(q, null)}">newest</a> `
      }${page.next === null ? '' : html`<a href="${timelineHref(q, page.next)}" rel="next">older</a>`}
    </p>`;
}
