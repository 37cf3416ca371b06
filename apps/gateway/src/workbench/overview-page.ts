/**
 * The Overview page (DESIGN.md §5a): committed entries per minute by outcome over the last
 * OVERVIEW_MINUTES (a server-drawn SVG chart and the same numbers as a table), the head index, the
 * tool calls claimed and never committed (unrecorded: indeterminate until recovered), latency
 * percentiles per phase and every replica of every service with its readiness — the last two from
 * the gateway's background replica survey (replica-survey.ts), so the page never waits for one.
 * The last two are the operator's only: they are neither a session's own episode nor the log's
 * public skeleton (DESIGN.md §3 "who may read and write what"), but every service's replicas and
 * the phase counts of every episode's calls; a session's page says so in their place.
 */
import {
  ENTRY_OUTCOMES,
  READ_DEADLINE_MS,
  type ReadScope,
  type TimelineRateRow,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { html, type Html } from './html.js';
import { latencySection, replicasSection } from './replicas-section.js';
import type { SurveySnapshot } from './replica-survey.js';

/** Minutes the chart covers. */
const OVERVIEW_MINUTES = 60;
/** The chart's outcomes, bottom to top, and their colours. */
const SERIES: Array<[TimelineRateRow['outcome'], string]> = [
  ...ENTRY_OUTCOMES.map((o): [TimelineRateRow['outcome'], string] => [
    o,
    { ok: '#137333', refused: '#b06000', denied: '#c5221f', failed: '#7b1fa2' }[o],
  ]),
  ['hidden', '#999999'],
];
const W = 720;
const H = 160;

/** Everything the page shows, read in the caller's scope. */
export interface Overview {
  headIndex: number | null;
  now: string;
  rate: TimelineRateRow[];
  unrecorded: number;
  unrecordedMore: boolean;
  /**
   * the last replica survey (null before the first one finished), or `hidden` for a viewer other
   * than the operator
   */
  survey: SurveySnapshot | null | 'hidden';
}

/**
 * Reads the overview: the ledger's head, rate and unrecorded reads, and the survey as last kept.
 * @param survey the survey to show: `hidden` unless the viewer is the operator
 * @throws the ledger's errors for the head, the rate and the unrecorded reads
 */
export async function readOverview(
  rpc: RpcClient,
  scope: ReadScope,
  survey: Overview['survey'],
): Promise<Overview> {
  const opts = { timeoutMs: READ_DEADLINE_MS };
  const [head, rate, unrecorded] = await Promise.all([
    rpc.request('ledger.head', {}, opts),
    rpc.request('ledger.timeline.rate', { scope, minutes: OVERVIEW_MINUTES }, opts),
    rpc.request('ledger.timeline.unrecorded', { scope, limit: 100 }, opts),
  ]);
  return {
    headIndex: head.entryIndex,
    now: rate.now,
    rate: rate.items,
    unrecorded: unrecorded.items.length,
    unrecordedMore: unrecorded.next !== null,
    survey,
  };
}

/** The minutes of the chart, oldest first, as ISO minute starts. */
function minutes(now: string): string[] {
  const end = Math.floor(Date.parse(now) / 60_000) * 60_000;
  return Array.from({ length: OVERVIEW_MINUTES }, (_, i) =>
    new Date(end - (OVERVIEW_MINUTES - 1 - i) * 60_000).toISOString(),
  );
}

/** Stacked bars per minute; presentation attributes only (the CSP allows no inline style). */
function chart(o: Overview): Html {
  const slots = minutes(o.now);
  const count = new Map(o.rate.map((r) => [`${r.minute} ${r.outcome}`, r.entries]));
  const totals = slots.map((m) => SERIES.reduce((n, [s]) => n + (count.get(`${m} ${s}`) ?? 0), 0));
  const peak = Math.max(1, ...totals);
  const bw = W / OVERVIEW_MINUTES;
  const bars: Html[] = [];
  slots.forEach((m, i) => {
    let y = H;
    for (const [series, colour] of SERIES) {
      const n = count.get(`${m} ${series}`) ?? 0;
      if (n === 0) continue;
      const h = (n / peak) * (H - 10);
      y -= h;
      bars.push(
        html`<rect
          x="${(i * bw + 1).toFixed(1)}"
          y="${y.toFixed(1)}"
          width="${(bw - 2).toFixed(1)}"
          height="${h.toFixed(1)}"
          fill="${colour}"
          ><title>${m.slice(11, 16)} ${series}: ${n}</title></rect
        >`,
      );
    }
  });
  return html`<svg
      id="rate-chart"
      role="img"
      aria-label="entries per minute by outcome, last ${OVERVIEW_MINUTES} minutes (peak ${peak})"
      viewBox="0 0 ${W} ${H}"
      width="${W}"
      height="${H}"
    >
      <rect x="0" y="0" width="${W}" height="${H}" fill="#fafafa" />
      ${bars}
    </svg>
    <p class="legend">
      ${SERIES.map(([s, c]) => html`<svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${c}" /></svg> ${s} `)}
      — peak ${peak} per minute; ${o.now.slice(11, 16)} UTC at the right
    </p>`;
}

/** The page's body. */
export function overviewBody(o: Overview): Html {
  const byMinute = new Map<string, Map<string, number>>();
  for (const r of o.rate) {
    const row = byMinute.get(r.minute) ?? new Map<string, number>();
    row.set(r.outcome, r.entries);
    byMinute.set(r.minute, row);
  }
  const rows = [...byMinute.entries()].sort(([a], [b]) => (a < b ? 1 : -1));
  return html`<dl class="overview">
      <dt>head</dt>
      <dd id="head-index">${o.headIndex === null ? 'no entries yet' : `#${o.headIndex}`}</dd>
      <dt>unrecorded calls</dt>
      <dd id="unrecorded-count">
        <a href="/workbench?outcome=unrecorded"
          >${o.unrecordedMore ? `${o.unrecorded} or more` : String(o.unrecorded)}</a
        >
        claimed and never committed (indeterminate until recovery ends them)
      </dd>
    </dl>
    <h2>entries per minute by outcome</h2>
    ${chart(o)}
    ${
      o.survey === 'hidden'
        ? html`<p id="operator-only" class="muted">
            Services, replicas and latency per phase are shown to the operator credential only: they
            describe every episode's calls, not this one's.
          </p>`
        : html`<div class="pair">${replicasSection(o.survey)} ${latencySection(o.survey)}</div>`
    }
    <h2>the chart's numbers</h2>
    <table id="rate">
      <thead>
        <tr>
          <th>minute (UTC)</th>
          ${SERIES.map(([s]) => html`<th>${s}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          ([m, row]) =>
            html`<tr>
              <td>${m.slice(11, 16)}</td>
              ${SERIES.map(([s]) => html`<td>${row.get(s) ?? 0}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>`;
}
