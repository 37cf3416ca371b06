/**
 * The Overview's services section and its latency per phase, both drawn from the last replica
 * survey (replica-survey.ts): every replica that answered with its readiness checks, integrity
 * scans and uptime; the replicas heard before that did not answer, and the services none of whose
 * replicas answered, stated as such; and count, p50, p90, p99 of each call phase from the
 * replicas' `world_phase_seconds` buckets summed (latency.ts).
 */
import { LATENCY_BUCKETS_SECONDS, SURVEYED_SERVICES, type ReplicaReport } from '@world/contracts';
import { boundText, phaseLatencies } from './latency.js';
import { html, type Html } from './html.js';
import type { SurveySnapshot } from './replica-survey.js';

/** A UTC time of day, `12:03:04`. */
const clockText = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/**
 * Seconds as `1h 02m`, `3m 04s`, `12s`.
 * @internal exported for replicas-section.spec.ts
 */
export function uptimeText(seconds: number): string {
  const s = Math.floor(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${two(Math.floor((s % 3600) / 60))}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  return `${s}s`;
}

/** A replica's readiness checks as one line: `database ok, nats ok`, or that none applies. */
function checksText(r: ReplicaReport): Html {
  const names = (['database', 'nats'] as const).filter((n) => r.checks[n] !== undefined);
  if (names.length === 0) return html`<span class="muted">none apply (in-process bus)</span>`;
  return html`${names.map(
    (n, i) =>
      html`${i > 0 ? ', ' : ''}${n}
        <span class="${r.checks[n] === 'ok' ? 'ok' : 'bad'}">${r.checks[n]}</span>`,
  )}`;
}

/** A replica's integrity scans, one line per scanned service. */
function integrityText(r: ReplicaReport): Html {
  const scans = Object.entries(r.integrity ?? {});
  if (scans.length === 0) return html`<span class="muted">owns no hashed data</span>`;
  return html`${scans.map(([service, s]) => {
    const extent = s.complete
      ? 'complete'
      : `incomplete${s.resume ? `, stopped at ${s.resume}` : ''}`;
    const state =
      s.state === 'mismatch'
        ? html`<span class="bad"
            >${s.mismatches} ${s.mismatches === 1 ? 'mismatch' : 'mismatches'}</span
          >`
        : s.state === 'scanning'
          ? html`scanning`
          : html`<span class="ok">clean</span>`;
    return html`<div>
      ${service}: ${state}, ${s.scanned} rows, ${s.state === 'scanning' ? 'so far' : extent}
      ${s.problems.length > 0 ? html`<div class="stop">${s.problems[0]}</div>` : ''}
    </div>`;
  })}`;
}

function stateCell(r: ReplicaReport): Html {
  return r.status === 'ready'
    ? html`<span class="ok">ready</span>`
    : html`<span class="bad">${r.status}</span>`;
}

/** What the last survey heard, or that none has finished yet. */
function surveyStatus(s: SurveySnapshot | null): Html {
  if (s === null)
    return html`<p id="survey-status">
      not surveyed yet: the first survey runs when the gateway starts
    </p>`;
  const n = s.replicas.length;
  return html`<p id="survey-status">
    surveyed
    <time datetime="${new Date(s.surveyedAtMs).toISOString()}">${clockText(s.surveyedAtMs)}</time>
    UTC, ${n} ${n === 1 ? 'replica' : 'replicas'} answered within ${s.windowMs} ms
  </p>`;
}

/** The services no replica of which answered, and the quiet replicas, one line each. */
function gaps(s: SurveySnapshot): Html {
  const silent = SURVEYED_SERVICES.filter((svc) => !s.replicas.some((r) => r.service === svc));
  if (silent.length === 0 && s.quiet.length === 0) return html``;
  return html`<ul id="survey-gaps">
    ${silent.map((svc) => html`<li class="stop">no replica of ${svc} answered</li>`)}
    ${s.quiet.map(
      (q) =>
        html`<li class="stop">
          ${q.instance} (${q.service}) did not answer; it last answered the survey of
          ${clockText(q.lastAnsweredMs)} UTC
        </li>`,
    )}
  </ul>`;
}

/** The services section: survey status, gaps, and one row per replica that answered. */
export function replicasSection(s: SurveySnapshot | null): Html {
  return html`<section class="replicas">
    <h2>services and replicas</h2>
    ${surveyStatus(s)} ${s === null ? '' : gaps(s)}
    <table id="replicas">
      <thead>
        <tr>
          <th>service</th>
          <th>replica</th>
          <th>state</th>
          <th>checks</th>
          <th>integrity scan</th>
          <th>up</th>
        </tr>
      </thead>
      <tbody>
        ${(s?.replicas ?? []).map(
          (r) =>
            html`<tr data-replica="${r.instance}">
              <td>${r.service}</td>
              <td>${r.instance}</td>
              <td>${stateCell(r)}</td>
              <td>${checksText(r)}</td>
              <td>${integrityText(r)}</td>
              <td>${uptimeText(r.uptimeSeconds)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** The latency section: count and p50/p90/p99 per phase, merged over the surveyed replicas. */
export function latencySection(s: SurveySnapshot | null): Html {
  const rows = phaseLatencies((s?.replicas ?? []).map((r) => r.phases));
  const last = LATENCY_BUCKETS_SECONDS[LATENCY_BUCKETS_SECONDS.length - 1]!;
  const timing = s?.replicas.filter((r) => r.phases.length > 0).length ?? 0;
  return html`<section class="latency">
    <h2>latency per phase</h2>
    <table id="latency">
      <thead>
        <tr>
          <th>phase</th>
          <th>count</th>
          <th>p50</th>
          <th>p90</th>
          <th>p99</th>
          <th>replicas</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (p) =>
            html`<tr data-phase="${p.phase}">
              <td>${p.phase}</td>
              ${
                p.problem !== null
                  ? html`<td colspan="4" class="stop">${p.problem}</td>`
                  : html`<td>${p.count}</td>
                      ${(p.bounds ?? [undefined, undefined, undefined]).map(
                        (b) => html`<td>${b === undefined ? '-' : boundText(b, p.lastBound)}</td>`,
                      )}`
              }
              <td>${p.replicas}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="muted" id="latency-note">
      ${rows.length === 0 ? 'No phase timed yet by the replicas that answered. ' : ''}Values are
      bucket upper bounds of <code>world_phase_seconds</code> (bounds
      ${LATENCY_BUCKETS_SECONDS.map((b) => boundText(b, last).slice(2)).join(', ')}), read from the
      buckets of each phase summed over the replicas that timed that phase (its
      <em>replicas</em> column; ${timing} ${timing === 1 ? 'replica' : 'replicas'} timed some phase
      in the last survey); counts are since each replica started.
    </p>
  </section>`;
}
