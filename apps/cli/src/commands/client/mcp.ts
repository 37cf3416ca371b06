/**
 * The agent verbs' MCP client: the official SDK client (`@modelcontextprotocol/client`, pinned to
 * protocol 2026-07-28) over Streamable HTTP to `<WORLD_URL>/mcp`, with the session as the Bearer
 * credential (world-spec §6.2, §7.3). A fetch wrapper keeps what the SDK does not report: the
 * text of a session refusal (401 text/plain, world-spec §6.1).
 */
import {
  Client,
  ProtocolError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/client';
import { CLIENT_TIMEOUT_MS, MCP_MODERN_PROTOCOL_VERSION } from '@world/contracts';
import { CliError } from '../util.js';
import { unreachable } from './http.js';

/** The one-line fix printed under a session refusal. */
const SESSION_FIX =
  'fix: mint a live session (`world session mint --episode <ep> --grant EFFECT=SCOPE:BUDGET --out FILE`) and pass it with --session FILE or $WORLD_SESSION';

/** The gateway refused the session before any MCP ran (world-spec §6.1: 401 text/plain + reason). */
class SessionRefusedError extends CliError {
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(`session refused (HTTP ${status}): ${reason}\n${SESSION_FIX}`);
    this.name = 'SessionRefusedError';
  }
}

/** A JSON-RPC error answer (world-spec §6.3): -32602 refusals, -32603 host failures. */
export class McpCallError extends CliError {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`MCP error ${code}: ${rpcMessage}`);
    this.name = 'McpCallError';
  }
}

/** JSON-RPC's internal error: the host failed; the effect may have run (world-spec §4.5, §6.3). */
export const HOST_FAILURE_CODE = -32603;

/** A connected MCP client for one session. */
export class McpClient {
  private refusal: { status: number; text: string } | undefined;

  private constructor(
    private readonly baseUrl: string,
    private readonly client: Client,
  ) {}

  /**
   * Connects to `<baseUrl>/mcp` with the session token.
   * @throws SessionRefusedError, CliError when unreachable
   */
  static async connect(baseUrl: string, token: string): Promise<McpClient> {
    const client = new Client(
      { name: 'world-cli', version: '0.1.0' },
      { versionNegotiation: { mode: { pin: MCP_MODERN_PROTOCOL_VERSION } } },
    );
    const self = new McpClient(baseUrl, client);
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (input, init) => self.observedFetch(input, init),
    });
    await self.guard('/mcp', () => client.connect(transport, { timeout: CLIENT_TIMEOUT_MS }));
    return self;
  }

  /** `tools/list`. @throws SessionRefusedError, McpCallError */
  async listTools(): Promise<Tool[]> {
    const result = await this.guard('/mcp', () =>
      this.client.listTools(undefined, { timeout: CLIENT_TIMEOUT_MS }),
    );
    return result.tools;
  }

  /**
   * `tools/call` with `_meta` (e.g. `world/taskId`, DESIGN.md §7.4).
   * @throws SessionRefusedError, McpCallError
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult> {
    return this.guard('/mcp', () =>
      this.client.callTool(
        { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
        { timeout: CLIENT_TIMEOUT_MS },
      ),
    );
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }

  private async observedFetch(
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> {
    const res = await fetch(input, init);
    const type = res.headers.get('content-type') ?? '';
    if ((res.status === 401 || res.status === 400) && type.startsWith('text/plain')) {
      this.refusal = { status: res.status, text: (await res.clone().text()).trim() };
    }
    return res;
  }

  /** Runs one SDK call and turns what it throws into the CLI's errors. */
  private async guard<T>(path: string, work: () => Promise<T>): Promise<T> {
    this.refusal = undefined;
    try {
      return await work();
    } catch (err) {
      // Set by observedFetch while `work` ran (TypeScript cannot see that assignment).
      const refusal = this.refusal as { status: number; text: string } | undefined;
      if (refusal !== undefined) throw new SessionRefusedError(refusal.status, refusal.text);
      if (err instanceof ProtocolError)
        throw new McpCallError(err.code, err.message.replace(/^MCP error -?\d+: /, ''));
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'number' && code < 0) {
        throw new McpCallError(
          code,
          String((err as Error).message).replace(/^MCP error -?\d+: /, ''),
        );
      }
      if (err instanceof CliError) throw err;
      throw unreachable(this.baseUrl, path, err);
    }
  }
}
