/**
 * The Timeline page's query (DESIGN.md §5a): cursor, page size and the filters (episode,
 * tool, outcome incl. `unrecorded`, surface, time), parsed once; and the links that carry it.
 */
import { BadRequestError, TIMELINE_LIMIT_MAX } from '@world/contracts';

/** Most rows on one page: the ledger's timeline read bound (TIMELINE_LIMIT_MAX, 100). */
const TIMELINE_PAGE_MAX = TIMELINE_LIMIT_MAX;
/** Rows on a page when `limit` is absent. */
const TIMELINE_PAGE_DEFAULT = 50;
/** The outcomes the timeline filters on; `unrecorded` is a claimed call without an entry. */
export const OUTCOMES = ['ok', 'refused', 'denied', 'failed', 'unrecorded'] as const;
/** The surfaces the timeline filters on. */
export const SURFACES = ['mcp', 'a2a', 'rest'] as const;

/** The page's query, parsed. Empty strings are absent filters. */
export interface TimelineQuery {
  /** an entry index, or for `unrecorded` the journal cursor; null: from the newest */
  before: string | null;
  limit: number;
  episode: string;
  tool: string;
  outcome: string;
  surface: string;
  /** ISO 8601 UTC instants (committed at or after / before), '' when absent */
  since: string;
  until: string;
}

/** The query parameters a link carries, in this order. */
const FILTERS = ['episode', 'tool', 'outcome', 'surface', 'since', 'until'] as const;
const FILTER_TEXT = /^[A-Za-z0-9._:/-]{0,128}$/;
/** What a `datetime-local` input submits (UTC on this page), or a full ISO instant. */
const TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d{1,3})?)?Z?$/;
const UNRECORDED_CURSOR = /^\d{4}-\d{2}-\d{2} [0-9:.]+\+00\|[^|]{1,300}$/;

/** An instant of the time filter as ISO 8601 UTC, '' when absent. */
function instant(name: string, value: string): string {
  if (value === '') return '';
  const m = TIME.exec(value);
  const date = m === null ? null : new Date(`${m[1]}T${m[2]}${m[3] ?? ':00'}Z`);
  if (date === null || Number.isNaN(date.getTime()))
    throw new BadRequestError(`${name} must be a time YYYY-MM-DDTHH:MM[:SS] (UTC)`);
  return date.toISOString();
}

/**
 * Refuses a parameter the page does not read: a bracketed form (`outcome[]=…`, `episode[a]=…`)
 * would otherwise be dropped silently and the page shown unfiltered.
 * @throws BadRequestError naming the parameter
 */
function checkNames(q: Record<string, unknown>, known: readonly string[]): void {
  for (const name of Object.keys(q)) {
    if (known.includes(name)) continue;
    const shown = name.slice(0, 64);
    throw new BadRequestError(
      /[[\]]/.test(name)
        ? `${shown}: parameters are plain name=value pairs (no [] or [key] forms)`
        : `${shown} is not a parameter of this page (it reads ${known.join(', ')})`,
    );
  }
}

/**
 * Parses the filters GET /workbench/rows is sent (the page's, without cursor or limit).
 * @throws BadRequestError naming the parameter that is not well formed
 */
export function parseRowsQuery(q: Record<string, unknown>): TimelineQuery {
  checkNames(q, FILTERS);
  const query = parseTimelineQuery(q);
  if (query.outcome === 'unrecorded')
    throw new BadRequestError('unrecorded calls have no rows to follow');
  return query;
}

/**
 * Parses the timeline query.
 * @throws BadRequestError naming the parameter that is not well formed
 */
export function parseTimelineQuery(q: Record<string, unknown>): TimelineQuery {
  checkNames(q, ['before', 'limit', ...FILTERS]);
  const one = (name: string): string => {
    const v = q[name];
    if (v === undefined) return '';
    if (typeof v !== 'string') throw new BadRequestError(`${name} must be given once`);
    return v;
  };
  const limit = one('limit');
  if (
    limit !== '' &&
    !(/^[0-9]{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= TIMELINE_PAGE_MAX)
  )
    throw new BadRequestError(`limit must be an integer 1..${TIMELINE_PAGE_MAX}`);
  const query: TimelineQuery = {
    before: null,
    limit: limit === '' ? TIMELINE_PAGE_DEFAULT : Number(limit),
    episode: one('episode'),
    tool: one('tool'),
    outcome: one('outcome'),
    surface: one('surface'),
    since: instant('since', one('since')),
    until: instant('until', one('until')),
  };
  for (const name of ['episode', 'tool'] as const)
    if (!FILTER_TEXT.test(query[name])) throw new BadRequestError(`${name} is not a name`);
  if (query.outcome !== '' && !(OUTCOMES as readonly string[]).includes(query.outcome))
    throw new BadRequestError(`outcome must be one of ${OUTCOMES.join(', ')}`);
  if (query.surface !== '' && !(SURFACES as readonly string[]).includes(query.surface))
    throw new BadRequestError(`surface must be one of ${SURFACES.join(', ')}`);
  const before = one('before');
  if (query.outcome === 'unrecorded') {
    // the journal knows the call's id and episode, not its tool or surface
    if (query.tool !== '' || query.surface !== '')
      throw new BadRequestError('unrecorded calls filter by episode and time only');
    if (before !== '' && !UNRECORDED_CURSOR.test(before))
      throw new BadRequestError('before is not a cursor of this listing');
  } else if (before !== '' && !/^[0-9]{1,15}$/.test(before))
    throw new BadRequestError('before must be a non-negative integer');
  query.before = before === '' ? null : before;
  return query;
}

/**
 * Why the page's live updates are off, or null when they run: they follow the newest page of
 * any filter of the log; an older page and the unrecorded listing (the journal's, not the log's)
 * do not move.
 */
export function liveOff(q: TimelineQuery): string | null {
  if (q.outcome === 'unrecorded') return 'unrecorded calls are read from the journal, not the log';
  if (q.before !== null) return 'an older page; open the newest page to follow';
  return null;
}

/** The filters' query string (no cursor, no limit): what GET /workbench/rows is sent. */
export function filterQuery(q: TimelineQuery): string {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (q[name] !== '') params.set(name, q[name]);
  return params.toString();
}

/** The query string of a timeline link, with `before` set (or dropped). */
export function timelineHref(q: TimelineQuery, before: string | number | null): string {
  const params = new URLSearchParams();
  if (before !== null) params.set('before', String(before));
  if (q.limit !== TIMELINE_PAGE_DEFAULT) params.set('limit', String(q.limit));
  for (const name of FILTERS) if (q[name] !== '') params.set(name, q[name]);
  const text = params.toString();
  return text === '' ? '/workbench' : `/workbench?${text}`;
}
