/**
 * The Episodes pages (DESIGN.md §5a): each episode's sessions and their grants (effect, scope,
 * budget granted, expiry), revoked or live, as the broker lists them (`broker.session.list`); an
 * episode page adds its worktree, its newest calls (the ledger's timeline index, as the Timeline
 * filtered by the episode shows them, which lists all of them), and from
 * `broker.episode.spend` the spend against budget of each grant (a server-drawn bar), the lease
 * holder and the indeterminate intents. A session credential sees its own episode only
 * (DESIGN.md §3).
 */
import { NotFoundError, READ_DEADLINE_MS, type ReadScope, type ReplyOf } from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { html, type Html } from './html.js';
import { entriesTable } from './timeline-page.js';

type SessionInfo = Awaited<ReturnType<typeof listSessions>>[number];
type Spend = ReplyOf<'broker.episode.spend'>;

/** Width of a spend bar in px. */
const BAR_W = 120;
/** The newest calls an Episode page lists (the timeline filtered by the episode has them all). */
const EPISODE_CALLS_SHOWN = 20;

/** The sessions the scope may see: all of them (operator) or its own episode's. */
export async function listSessions(rpc: RpcClient, scope: ReadScope, episodeId?: string) {
  const only = scope.kind === 'episode' ? scope.episodeId : episodeId;
  if (scope.kind === 'episode' && episodeId !== undefined && episodeId !== scope.episodeId)
    return [];
  const reply = await rpc.request(
    'broker.session.list',
    only === undefined ? {} : { episodeId: only },
    { timeoutMs: READ_DEADLINE_MS },
  );
  return reply.items;
}

function time(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function sessionsTable(sessions: SessionInfo[], now: number): Html {
  return html`<table class="sessions">
    <thead>
      <tr>
        <th>session</th>
        <th>state</th>
        <th>expires</th>
        <th>grants (effect@scope: budget granted, expiry)</th>
      </tr>
    </thead>
    <tbody>
      ${sessions.map(
        (s) =>
          html`<tr>
            <td><code>${s.credentialId}</code></td>
            <td>
              ${s.revokedAt !== null ? `revoked ${time(s.revokedAt)}` : s.live ? 'live' : 'expired'}
            </td>
            <td>${time(s.expiresAt)}</td>
            <td>
              <ul>
                ${s.grants.map(
                  (g) =>
                    html`<li>
                      ${g.effect}@${g.scope}: ${g.budget}${g.expiresAt <= now ? ' (expired)' : ''}
                      until ${time(g.expiresAt)}
                    </li>`,
                )}
              </ul>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * A bar of spent against budget: presentation attributes only (the CSP allows no inline style).
 * Full and red once nothing is left; spend over a budget of 0 (other grants of the same effect
 * and scope spent it) fills it too.
 */
function bar(spent: number, budget: number, left: number): Html {
  const fill = budget > 0 ? Math.min(1, spent / budget) : spent > 0 ? 1 : 0;
  return html`<svg
    class="bar"
    role="img"
    aria-label="${spent} of ${budget} spent"
    width="${BAR_W}"
    height="10"
    viewBox="0 0 ${BAR_W} 10"
  >
    <rect width="${BAR_W}" height="10" fill="#e0e0e0" />
    <rect
      width="${(fill * BAR_W).toFixed(1)}"
      height="10"
      fill="${left === 0 ? '#c5221f' : '#137333'}"
    />
  </svg>`;
}

function spendTable(spend: Spend, now: number): Html {
  return html`<table class="spend">
    <thead>
      <tr>
        <th>session</th>
        <th>grant</th>
        <th>spent against budget</th>
        <th>spent / budget</th>
        <th>left</th>
        <th>expires</th>
      </tr>
    </thead>
    <tbody>
      ${spend.grants.map(
        (g) =>
          html`<tr>
            <td><code>${g.credentialId.slice(0, 12)}</code></td>
            <td>${g.effect}@${g.scope}</td>
            <td>${bar(g.spent, g.budget, g.left)}</td>
            <td>${g.spent} / ${g.budget}</td>
            <td>${g.left}</td>
            <td>${time(g.expiresAt)}${g.expiresAt <= now ? ' (expired)' : ''}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function leaseAndIntents(spend: Spend): Html {
  const lease = spend.lease;
  return html`<dl>
      <dt>lease holder</dt>
      <dd id="lease">
        ${
          lease === null
            ? 'none (free)'
            : html`<code>${lease.holder}</code> until ${time(lease.expiresAt)} (fence
                ${lease.fence})`
        }
      </dd>
      <dt>indeterminate intents</dt>
      <dd id="indeterminate">
        ${
          spend.indeterminate.length === 0
            ? 'none'
            : html`${spend.indeterminate.length} without outcome that no live replica can finish
              (never re-run)`
        }
      </dd>
    </dl>
    ${
      spend.indeterminate.length === 0
        ? null
        : html`<table class="indeterminate">
            <thead>
              <tr>
                <th>intent</th>
                <th>invocation</th>
                <th>effect@scope</th>
              </tr>
            </thead>
            <tbody>
              ${spend.indeterminate.map(
                (i) =>
                  html`<tr>
                    <td>#${i.ordinal}</td>
                    <td><code>${i.invocationId}</code></td>
                    <td>${i.effect}@${i.scope}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}

/** The list of episodes: one row per episode with its session counts. */
export function episodesBody(sessions: SessionInfo[]): Html {
  const by = new Map<string, SessionInfo[]>();
  for (const s of sessions) by.set(s.episodeId, [...(by.get(s.episodeId) ?? []), s]);
  const ids = [...by.keys()].sort();
  if (ids.length === 0) return html`<p>No episode has a session yet.</p>`;
  return html`<table class="episodes">
    <thead>
      <tr>
        <th>episode</th>
        <th>sessions</th>
        <th>live</th>
        <th>revoked</th>
      </tr>
    </thead>
    <tbody>
      ${ids.map((id) => {
        const list = by.get(id)!;
        return html`<tr>
          <td><a href="/workbench/episodes/${encodeURIComponent(id)}">${id}</a></td>
          <td>${list.length}</td>
          <td>${list.filter((s) => s.live).length}</td>
          <td>${list.filter((s) => s.revokedAt !== null).length}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/** One episode's page, or null when the scope may not see it or it does not exist. */
export async function episodeBody(
  rpc: RpcClient,
  scope: ReadScope,
  episodeId: string,
  now: number,
): Promise<Html | null> {
  if (scope.kind === 'episode' && scope.episodeId !== episodeId) return null;
  let worktree: string;
  try {
    const ep = await rpc.request(
      'broker.episode.get',
      { episodeId },
      { timeoutMs: READ_DEADLINE_MS },
    );
    worktree = ep.worktree;
  } catch {
    return null;
  }
  let spend: Spend;
  try {
    spend = await rpc.request(
      'broker.episode.spend',
      { episodeId, scope },
      { timeoutMs: READ_DEADLINE_MS },
    );
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
  const [sessions, calls] = await Promise.all([
    listSessions(rpc, scope, episodeId),
    rpc.request(
      'ledger.timeline',
      { scope, limit: EPISODE_CALLS_SHOWN, episode: episodeId },
      { timeoutMs: READ_DEADLINE_MS },
    ),
  ]);
  const timeline = `/workbench?episode=${encodeURIComponent(episodeId)}`;
  return html`<dl>
      <dt>worktree</dt>
      <dd><code>${worktree}</code></dd>
    </dl>
    <h2>calls</h2>
    ${
      calls.items.length === 0
        ? html`<p id="no-calls">No call of this episode is in the log yet.</p>`
        : entriesTable('episode-calls', calls.items)
    }
    <p>
      ${
        calls.next === null
          ? html`<a href="${timeline}">this episode's calls on the timeline</a>`
          : html`the newest ${EPISODE_CALLS_SHOWN};
              <a href="${timeline}">all of this episode's calls on the timeline</a>`
      }
    </p>
    ${leaseAndIntents(spend)}
    <h2>spend against budget</h2>
    ${spendTable(spend, now)}
    <h2>sessions and grants</h2>
    ${sessionsTable(sessions, now)}`;
}
