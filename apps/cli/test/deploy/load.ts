/**
 * The deployment test's load: episodes and sessions made through the gateway's operator routes
 * (world-spec §7.4), and tool calls through the official MCP client (`@modelcontextprotocol/client`)
 * on the published port, each timed and classified.
 *
 * Every call is an `ailang-edit` that inserts its own task id as a line before the END marker of
 * its episode's journal.txt, so what ran is observable in the worktree (a call run twice leaves
 * its line twice). Every call carries `_meta["world/taskId"]` (DESIGN.md §7.4), so its invocation
 * id `mcp:<episode>:<task>` is known to the test.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const MARK = '<<END>>\n';
const JOURNAL = 'journal.txt';

/**
 * The documented ways a call may fail instead of answering a result: MCP's host failure, -32603
 * `host callback failed` or `host callback timed out` (results-and-errors.txt "When the call
 * itself fails"); for a call with a task id (every call here carries `world/taskId`), what
 * became of it as A2A says it (README "Exactly-once over MCP", world-spec §4.5/§6.5): -32603
 * `invocation outcome is not confirmed; resend the same task id`, `effects were requested but
 * the invocation was not confirmed committed; effect records: …` and `invocation exceeded its
 * deadline`; and the gateway's own deadline, HTTP 503 asking to retry (world-spec §5.1).
 */
export function isDocumentedError(code: number, message: string): boolean {
  return (
    (code === -32603 &&
      (/host callback (failed|timed out)$/.test(message) ||
        message === 'invocation outcome is not confirmed; resend the same task id' ||
        message === 'invocation exceeded its deadline' ||
        /^effects were requested but the invocation was not confirmed committed; effect records: (sha256:[0-9a-f]{64}( sha256:[0-9a-f]{64})*|\(none recorded yet\))$/.test(
          message,
        ))) ||
    (code === 503 && /the deadline ended before World answered; retry the request$/.test(message))
  );
}

/** One planned tool call. */
export interface Call {
  /** the task id, unique in the run; also the line the call inserts */
  id: string;
  worker: number;
  episode: string;
}

/** How one call ended, with when it was sent and answered (ms since the epoch). */
export type Answer = { call: Call; sentAt: number; answeredAt: number } & (
  { kind: 'result'; status: string } | { kind: 'error'; code: number; message: string }
);

export const invocationOf = (c: Call) => `mcp:${c.episode}:${c.id}`;

/**
 * `perEpisode` calls on each episode, with two workers per episode taking turns (so every
 * episode has two calls racing for its lease) and the episodes' calls interleaved. Task ids are
 * `<prefix>-<episode index>-<k>`.
 */
export function planCalls(prefix: string, episodes: string[], perEpisode: number): Call[] {
  const calls: Call[] = [];
  for (let k = 0; k < perEpisode; k++)
    episodes.forEach((episode, i) =>
      calls.push({ id: `${prefix}-${i}-${k}`, worker: 2 * i + (k % 2), episode }),
    );
  return calls;
}

/** The gateway as the operator and the agents reach it. */
export class WorldClient {
  private readonly tokens = new Map<string, string>();
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly url: string,
    private readonly operatorToken: string,
  ) {}

  /** POST to an operator route; throws with the status and body unless it answers 200. */
  async operator(path: string, body: unknown): Promise<any> {
    const res = await fetch(`${this.url}/v1/operator/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.operatorToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
    return JSON.parse(text);
  }

  /**
   * Creates an empty episode and a session for it with one Workspace.Write grant of `budget`
   * calls; resolves with the episode's worktree (a path inside the broker containers).
   */
  async createEpisode(episode: string, budget: number): Promise<string> {
    const created = await this.operator('episodes', { episodeId: episode });
    const minted = await this.operator('sessions', {
      episodeId: episode,
      grants: [`Workspace.Write=worktree:${budget}`],
    });
    this.tokens.set(episode, minted.token as string);
    return created.worktree as string;
  }

  private async clientFor(worker: number, episode: string): Promise<Client> {
    const key = `${worker}/${episode}`;
    let client = this.clients.get(key);
    if (client === undefined) {
      client = new Client({ name: 'deploy-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${this.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${this.tokens.get(episode)}` } },
        }),
      );
      this.clients.set(key, client);
    }
    return client;
  }

  /** Calls `name` with `args` for `call` and classifies what came back. */
  async callOnce(call: Call, name: string, args: Record<string, unknown>): Promise<Answer> {
    const sentAt = Date.now();
    try {
      const client = await this.clientFor(call.worker, call.episode);
      const res = await client.callTool({
        name,
        arguments: args,
        _meta: { 'world/taskId': call.id },
      });
      const out = res.structuredContent as { world: { effects: Array<{ status: string }> } };
      return {
        call,
        sentAt,
        answeredAt: Date.now(),
        kind: 'result',
        status: out.world.effects[0]!.status,
      };
    } catch (err) {
      // A JSON-RPC error carries a numeric code; an HTTP failure is the SDK's SdkHttpError, whose
      // HTTP status is `status`; a transport failure (connection refused) has neither.
      const e = err as { code?: number | string; status?: number; message?: string };
      const code = typeof e.code === 'number' ? e.code : (e.status ?? 0);
      return {
        call,
        sentAt,
        answeredAt: Date.now(),
        kind: 'error',
        code,
        message: String(e.message),
      };
    }
  }

  /** Writes the episode's journal.txt holding only the END marker (one Workspace.Write call). */
  seedJournal(episode: string, worker: number): Promise<Answer> {
    return this.callOnce({ id: `seed-${episode}`, worker, episode }, 'ailang-write', {
      path: JOURNAL,
      content: MARK,
    });
  }

  /** One journal edit: inserts the task id before the END marker. */
  edit(call: Call): Promise<Answer> {
    return this.callOnce(call, 'ailang-edit', {
      path: JOURNAL,
      old_text: MARK,
      new_text: `${call.id}\n${MARK}`,
    });
  }

  /**
   * Runs the workers at once, each through its calls in order; `onAnswer` sees every answer as it
   * arrives (the scenario injects its faults from there). Resolves with every answer.
   */
  async drive(calls: Call[], onAnswer: (answers: Answer[]) => void = () => {}): Promise<Answer[]> {
    const answers: Answer[] = [];
    const byWorker = new Map<number, Call[]>();
    for (const c of calls) byWorker.set(c.worker, [...(byWorker.get(c.worker) ?? []), c]);
    await Promise.all(
      [...byWorker.values()].map(async (list) => {
        for (const call of list) {
          answers.push(await this.edit(call));
          onAnswer(answers);
        }
      }),
    );
    return answers;
  }

  /**
   * One worker per episode calling one edit after another until `stop()` says so or a call is
   * refused at the transport (no gateway answers): the load a shutdown meets. Task ids are
   * `<prefix>-<episode index>-<k>`.
   */
  async trickle(prefix: string, episodes: string[], stop: () => boolean): Promise<Answer[]> {
    const answers: Answer[] = [];
    await Promise.all(
      episodes.map(async (episode, i) => {
        for (let k = 0; !stop(); k++) {
          const a = await this.edit({ id: `${prefix}-${i}-${k}`, worker: 2 * i, episode });
          answers.push(a);
          if (a.kind === 'error' && a.code === 0) break;
        }
      }),
    );
    return answers;
  }

  /** Closes every MCP client (the next call connects anew). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close().catch(() => undefined)));
    this.clients.clear();
  }
}
