/**
 * The bare baseline (issue 7): a minimal MCP server on the same SDK and HTTP stack as World's
 * gateway — `createMcpHandler` (one low-level `Server` per POST, stateless) behind
 * `toNodeHandler` on `node:http` — with one tool that reads the same 2 KiB file from disk and
 * returns it. No auth, no broker, no budget, no log.
 *
 * Process entry: `node bench/dist/baseline/server.js` with BENCH_DIR (the directory holding the
 * file) and BENCH_BIND (host:port, port 0 = any); logs one JSON line `{"msg":"ready","url":…}`.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, normalize, isAbsolute } from 'node:path';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { MCP_BODY_MAX_BYTES } from '@world/contracts';
import { TOOL_NAME } from '../config.js';

/** The tools/call result shape World's gateway answers: the output as text and as structure. */
function result(output: Record<string, unknown>) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(output) }],
    structuredContent: output,
  };
}

/** One low-level Server per POST, as World's gateway builds it (ecosystem.md §8). */
function toolServer(dir: string): Server {
  const server = new Server(
    { name: 'bench-baseline', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: TOOL_NAME,
        description: 'Read one file of the baseline directory and return its text.',
        inputSchema: {
          type: 'object' as const,
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const path = (request.params.arguments as { path?: unknown } | undefined)?.path;
    const rel = typeof path === 'string' ? normalize(path) : '';
    if (
      request.params.name !== TOOL_NAME ||
      rel === '' ||
      isAbsolute(rel) ||
      rel.startsWith('..')
    ) {
      return result({ ok: false, refused: 'bad request' });
    }
    try {
      return result({ ok: true, content: await readFile(join(dir, rel), 'utf8') });
    } catch {
      return result({ ok: false, refused: 'no such file' });
    }
  });
  return server;
}

/**
 * Starts the baseline on `bind` serving files of `dir`.
 * @returns the MCP endpoint URL and a close function
 */
export async function startBaseline(
  dir: string,
  bind: { host: string; port: number },
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(() => toolServer(dir), {
    keepAliveMs: 0,
    maxRequestBodySize: MCP_BODY_MAX_BYTES,
  });
  const node = toNodeHandler(handler, { maxRequestBodySize: MCP_BODY_MAX_BYTES });
  const server = createServer((req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    void node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(bind.port, bind.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : bind.port;
  return {
    url: `http://${bind.host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const dir = process.env.BENCH_DIR;
  const [host, port] = (process.env.BENCH_BIND ?? '127.0.0.1:0').split(/:(?=[^:]*$)/);
  if (dir === undefined || host === undefined || port === undefined) {
    process.stderr.write('baseline: BENCH_DIR and BENCH_BIND (host:port) are required\n');
    process.exit(2);
  }
  const running = await startBaseline(dir, { host, port: Number(port) });
  process.stdout.write(`${JSON.stringify({ msg: 'ready', url: running.url, pid: process.pid })}\n`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
