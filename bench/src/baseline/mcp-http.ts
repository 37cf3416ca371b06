/**
 * The HTTP/MCP stack of the baseline, and of the floor's gateway (issue 19: "the same HTTP/MCP
 * stack as the baseline for the gateway role"): `createMcpHandler` of @modelcontextprotocol/server
 * (one low-level `Server` per POST, stateless) behind `toNodeHandler` of @modelcontextprotocol/node
 * on `node:http`, with one tool, `ailang-read`, whose work is the caller's function.
 */
import { createServer } from 'node:http';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { MCP_BODY_MAX_BYTES } from '@world/contracts';
import { TOOL_NAME } from '../config.js';

/**
 * The tool's work: the call's arguments and the HTTP request's headers in, the output object
 * out (`{ok: true, content}` or `{ok: false, refused}`).
 */
export type ToolCall = (
  args: Record<string, unknown> | undefined,
  headers: Headers | undefined,
) => Promise<Record<string, unknown>>;

/** The tools/call result shape World's gateway answers: the output as text and as structure. */
function result(output: Record<string, unknown>) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(output) }],
    structuredContent: output,
  };
}

/** One low-level Server per POST, as World's gateway builds it (ecosystem.md §8). */
function toolServer(name: string, call: ToolCall, headers: Headers | undefined): Server {
  const server = new Server(
    { name, version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: TOOL_NAME,
        description: 'Read one file of the served directory and return its text.',
        inputSchema: {
          type: 'object' as const,
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async (request) => {
    if (request.params.name !== TOOL_NAME) return result({ ok: false, refused: 'no such tool' });
    return result(
      await call(request.params.arguments as Record<string, unknown> | undefined, headers),
    );
  });
  return server;
}

/**
 * Serves the tool on `bind` at /mcp.
 * @param name the server's MCP name
 * @returns the MCP endpoint URL and a close function
 */
export async function startToolServer(
  name: string,
  bind: { host: string; port: number },
  call: ToolCall,
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler((ctx) => toolServer(name, call, ctx.requestInfo?.headers), {
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

/** Splits BENCH_BIND (`host:port`, port 0 = any). @throws Error when it is malformed */
export function parseBind(value: string | undefined): { host: string; port: number } {
  const [host, port] = (value ?? '127.0.0.1:0').split(/:(?=[^:]*$)/);
  if (host === undefined || port === undefined || !/^\d+$/.test(port))
    throw new Error(`BENCH_BIND must be host:port, got "${value}"`);
  return { host, port: Number(port) };
}
