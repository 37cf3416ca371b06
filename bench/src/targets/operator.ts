/**
 * The operator routes of World's gateway, as the `world` CLI drives them (world-spec §7.4):
 * create an episode from a directory, mint a session, read the head. Used to set a run up in
 * both modes, so embedded (no NATS) and distributed are prepared the same way.
 */
import { AMPLE_BUDGET, HARNESS_REQUEST_MS, SESSION_TTL_SECONDS } from '../config.js';
import type { ClientCredential } from './target.js';

/** Episodes and sessions are created this many at a time. */
const SETUP_PARALLELISM = 4;

/** A client of one gateway's operator routes. */
export class OperatorApi {
  constructor(
    readonly baseUrl: string,
    private readonly operatorToken: string,
  ) {}

  private async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.operatorToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(HARNESS_REQUEST_MS),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** POST /v1/operator/episodes with a copy of `from`. */
  async createEpisode(episodeId: string, from: string): Promise<string> {
    const reply = await this.json<{ worktree: string }>('POST', '/v1/operator/episodes', {
      episodeId,
      from,
    });
    return reply.worktree;
  }

  /** POST /v1/operator/sessions: Workspace.Read on the worktree with an ample budget. */
  async mintSession(episodeId: string): Promise<{ token: string; credentialId: string }> {
    return this.json('POST', '/v1/operator/sessions', {
      episodeId,
      grants: [`Workspace.Read=worktree:${AMPLE_BUDGET}`],
      ttlSeconds: SESSION_TTL_SECONDS,
    });
  }

  /**
   * The head's revision: GET /v1/head (the world ref, text) then GET /v1/worlds/{ref}. Every
   * commit moves the head by one revision and one entry, so it equals the head's entryIndex.
   */
  async headIndex(): Promise<number> {
    const res = await fetch(`${this.baseUrl}/v1/head`, {
      headers: { authorization: `Bearer ${this.operatorToken}` },
      signal: AbortSignal.timeout(HARNESS_REQUEST_MS),
    });
    const ref = (await res.text()).trim();
    if (!res.ok) throw new Error(`GET /v1/head: ${res.status} ${ref}`);
    const world = await this.json<{ revision: number }>('GET', `/v1/worlds/${ref}`);
    return world.revision;
  }

  /**
   * Creates `n` episodes (or one shared) seeded from `source`, each with its own session(s).
   * Episode ids are `<label>-<i>` under a run tag so repeated labels never collide.
   */
  async clients(
    n: number,
    label: string,
    source: string,
    runTag: string,
    sharedEpisode: boolean,
  ): Promise<ClientCredential[]> {
    const ids = Array.from({ length: sharedEpisode ? 1 : n }, (_, i) => `${runTag}-${label}-${i}`);
    await inBatches(ids, (id) => this.createEpisode(id, source));
    const owners = Array.from({ length: n }, (_, i) => ids[sharedEpisode ? 0 : i]!);
    return inBatches(owners, async (episodeId) => {
      const s = await this.mintSession(episodeId);
      return {
        headers: { authorization: `Bearer ${s.token}` },
        episodeId,
        token: s.token,
        credentialId: s.credentialId,
      };
    });
  }
}

async function inBatches<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += SETUP_PARALLELISM) {
    out.push(...(await Promise.all(items.slice(i, i + SETUP_PARALLELISM).map(work))));
  }
  return out;
}
