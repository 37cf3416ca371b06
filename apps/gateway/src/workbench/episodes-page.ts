/**
 * The Episodes pages (issue 15): each episode's sessions and their grants (effect, scope,
 * budget left, expiry), revoked or live, as the broker lists them (`broker.session.list`); an
 * episode page adds its worktree and a link to its calls on the timeline. A session credential
 * sees its own episode only (DESIGN.md §3).
 */
import { READ_DEADLINE_MS, type ReadScope } from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { html, type Html } from './html.js';

type SessionInfo = Awaited<ReturnType<typeof listSessions>>[number];

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
        <th>grants (effect@scope: budget left, expiry)</th>
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
  const sessions = await listSessions(rpc, scope, episodeId);
  return html`<dl>
      <dt>worktree</dt>
      <dd><code>${worktree}</code></dd>
    </dl>
    <p>
      <a href="/workbench?episode=${encodeURIComponent(episodeId)}"
        >this episode's calls on the timeline</a
      >
    </p>
    <h2>sessions and grants</h2>
    ${sessionsTable(sessions, now)}`;
}
