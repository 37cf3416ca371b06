/**
 * The floor's gateway (issue 19): the baseline's HTTP/MCP stack (../baseline/mcp-http.ts) whose
 * tool requests `planner.invoke` over NATS and answers the planner's output. The client's
 * episode comes from its `x-floor-episode` header (World's gateway resolves it from the
 * session). Process entry: `node bench/dist/floor/gateway.js` with NATS_URL, FLOOR_PREFIX and
 * BENCH_BIND (host:port); logs `{"msg":"ready","url":…}`.
 */
import { parseBind, startToolServer } from '../baseline/mcp-http.js';
import { isEntry, natsConnect, requestJson, runEntry, serve, subject } from './common.js';
import type { InvokeReply, InvokeRequest } from './planner.js';

/** The header carrying a floor client's episode id. */
export const EPISODE_HEADER = 'x-floor-episode';

async function start(): Promise<void> {
  const nc = await natsConnect('gateway');
  const invokeSubject = subject('invoke');
  const running = await startToolServer(
    'bench-floor',
    parseBind(process.env.BENCH_BIND),
    async (args, headers) => {
      const episode = headers?.get(EPISODE_HEADER) ?? 'anonymous';
      const reply = await requestJson<InvokeRequest, InvokeReply>(nc, invokeSubject, {
        episode,
        path: args?.path,
      });
      return reply.ok
        ? { ok: true, content: reply.content }
        : { ok: false, refused: reply.refused };
    },
  );
  serve('gateway', { url: running.url }, async () => {
    await running.close();
    await nc.drain();
  });
}

if (isEntry(import.meta.url)) runEntry('gateway', start);
