/**
 * The floor's planner (issue 19): answers `planner.invoke` by requesting `broker.execute`, then
 * `ledger.commit` for its outcome, replying to the gateway, and publishing `broker.release`
 * without waiting (World's asynchronous lease release). No database: World's planner has none.
 * Process entry: `node bench/dist/floor/planner.js` with NATS_URL and FLOOR_PREFIX.
 */
import type { ExecuteReply, ExecuteRequest } from './broker.js';
import { decode, isEntry, natsConnect, requestJson, runEntry, serve, subject } from './common.js';
import type { CommitReply, CommitRequest } from './ledger.js';

/** What the gateway sends: the episode (its client's) and the tool's path argument. */
export interface InvokeRequest {
  episode: string;
  path: unknown;
}

/** What the planner answers: the tool's output and, when committed, the entry's index. */
export type InvokeReply =
  { ok: true; content: string; entryIndex: number } | { ok: false; refused: string };

async function start(): Promise<void> {
  const nc = await natsConnect('planner');
  const execSubject = subject('execute');
  const commitSubject = subject('commit');
  const releaseSubject = subject('release');
  const invoke = async (req: InvokeRequest): Promise<InvokeReply> => {
    const exec = await requestJson<ExecuteRequest, ExecuteReply>(nc, execSubject, {
      episode: req.episode,
      path: req.path,
    } as ExecuteRequest);
    if (exec.intentId === undefined) return { ok: false, refused: exec.ok ? '' : exec.refused };
    const commit = await requestJson<CommitRequest, CommitReply>(nc, commitSubject, {
      episode: req.episode,
      intentId: exec.intentId,
    });
    if (!commit.ok) return { ok: false, refused: commit.error };
    return exec.ok
      ? { ok: true, content: exec.content, entryIndex: commit.entryIndex }
      : { ok: false, refused: exec.refused };
  };
  nc.subscribe(subject('invoke'), {
    callback: (err, msg) => {
      if (err !== null) return;
      const req = decode<InvokeRequest>(msg.data);
      invoke(req).then(
        (reply) => {
          msg.respond(JSON.stringify(reply));
          nc.publish(releaseSubject, JSON.stringify({ episode: req.episode }));
        },
        (e: unknown) => msg.respond(JSON.stringify({ ok: false, refused: String(e) })),
      );
    },
  });
  await nc.flush();
  serve('planner', {}, () => nc.drain());
}

if (isEntry(import.meta.url)) runEntry('planner', start);
