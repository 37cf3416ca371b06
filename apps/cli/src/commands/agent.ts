/**
 * The agent-side verbs (world-spec §7.3): `tools list`, `call`, `health`. `tools list`
 * and `call` speak MCP to /mcp with the session; `call` tells a committed result (exit 0, or 3
 * with --strict when ok:false or an effect was denied or failed) from a host failure (exit 1, saying whether the head moved) and
 * from a session refusal (exit 1, the reason and a fix).
 */
import { readFile } from 'node:fs/promises';
import { refOf } from '@world/canonical';
import { CLI_PREVIEW_CHARS, MCP_TASK_ID_META_KEY, TASK_ID, TASK_ID_RULE } from '@world/contracts';
import { gatewayUrl, sessionToken, type Warn } from './client/credentials.js';
import { preview } from './client/format.js';
import { GatewayClient, GatewayHttpError, httpError } from './client/http.js';
import { HOST_FAILURE_CODE, McpCallError, McpClient } from './client/mcp.js';
import { warner, type Output } from './operator.js';
import { CliError, strictUtf8 } from './util.js';

/** A tool description in `tools list` keeps this many characters of its first line. */
const DESCRIPTION_CHARS = CLI_PREVIEW_CHARS / 2;

/** Exit code of `call --strict` on ok:false and of a broken `why` link (world-spec §7.1). */
export const EXIT_INTEGRITY = 3;

/**
 * The session an agent verb needs.
 * @throws CliError (exit 2) when neither --session nor $WORLD_SESSION is given
 */
async function requireSession(
  option: string | undefined,
  env: NodeJS.ProcessEnv,
  warn: Warn,
): Promise<string> {
  const token = await sessionToken(option, env, warn);
  if (token === undefined)
    throw new CliError('no session: pass --session FILE|TOKEN or set $WORLD_SESSION', 2);
  return token;
}

/**
 * `world tools list [--session S] [--json]`: MCP `tools/list`; one line per tool (name, the start
 * of its description, `required: …`), then `N tool(s)`; --json prints the tools array.
 */
export async function toolsList(
  options: { session?: string; json?: boolean },
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  const token = await requireSession(options.session, env, warner(io));
  const mcp = await McpClient.connect(gatewayUrl(env), token);
  try {
    const tools = await mcp.listTools();
    if (options.json) {
      io.out(JSON.stringify(tools, null, 2));
      return;
    }
    const width = Math.max(0, ...tools.map((t) => t.name.length));
    for (const tool of tools) {
      const line = (tool.description ?? '').split('\n')[0] ?? '';
      const description =
        line.length > DESCRIPTION_CHARS ? `${line.slice(0, DESCRIPTION_CHARS)}…` : line;
      const required = (tool.inputSchema as { required?: unknown }).required;
      const names = Array.isArray(required) && required.length > 0 ? required.join(', ') : '(none)';
      io.out(`${tool.name.padEnd(width)}  ${description}  required: ${names}`);
    }
    io.out(`${tools.length} tool(s)`);
  } finally {
    await mcp.close();
  }
}

/** The arguments options of `call`. */
interface CallArgOptions {
  arg?: string[];
  argJson?: string[];
  json?: string;
}

function splitPair(text: string, flag: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new CliError(`${flag} "${text}" must be KEY=VALUE`, 2);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/**
 * Builds a call's arguments object from repeated `--arg k=v` (strings) and `--arg-json k=<json>`,
 * or one `--json <obj>|@file|-` (world-spec §7.3: the forms do not mix).
 * @param stdin reads standard input (for `--json -`)
 * @throws CliError (exit 2) naming the bad option
 * @internal exported for agent.spec.ts
 */
export async function callArguments(
  options: CallArgOptions,
  stdin: () => Promise<string>,
): Promise<Record<string, unknown>> {
  const pairs = (options.arg ?? []).length + (options.argJson ?? []).length;
  if (options.json !== undefined) {
    if (pairs > 0) throw new CliError('--json does not mix with --arg or --arg-json', 2);
    const source = options.json;
    let text: string;
    if (source === '-') text = await stdin();
    else if (source.startsWith('@')) {
      let bytes: Buffer;
      try {
        bytes = await readFile(source.slice(1));
      } catch (err) {
        throw new CliError(`--json ${source}: ${(err as Error).message}`, 2);
      }
      text = strictUtf8(bytes, `--json ${source}`);
    } else text = source;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new CliError(`--json: not JSON (${(err as Error).message})`, 2);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new CliError('--json must be a JSON object', 2);
    return value as Record<string, unknown>;
  }
  const args: Record<string, unknown> = {};
  const put = (key: string, value: unknown, flag: string) => {
    if (Object.prototype.hasOwnProperty.call(args, key))
      throw new CliError(`${flag}: argument "${key}" is given twice`, 2);
    // Defined, not assigned: `args.__proto__ = v` would set the prototype and drop the key,
    // and the plan must see it to refuse it as unknown (world-spec §3.0).
    Object.defineProperty(args, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  };
  for (const text of options.arg ?? []) {
    const [key, value] = splitPair(text, '--arg');
    put(key, value, '--arg');
  }
  for (const text of options.argJson ?? []) {
    const [key, json] = splitPair(text, '--arg-json');
    try {
      put(key, JSON.parse(json), '--arg-json');
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new CliError(`--arg-json ${key}: not JSON (${(err as Error).message})`, 2);
    }
  }
  return args;
}

/** The world block of a result (world-spec §4.2). */
interface WorldBlock {
  plan?: unknown;
  effects?: Array<{ id?: unknown; status?: unknown; record?: unknown }>;
}

/**
 * The human lines of a committed result (world-spec §7.3): each tool field (long values elided
 * with byte counts), `output: sha256:… (N bytes)`, then the world block (`plan …`, `effect e1 ok
 * <record>` per effect, or `effects: none`).
 * @param bytes the committed output bytes (content[0].text)
 * @internal exported for agent.spec.ts
 */
export function resultLines(result: Record<string, unknown>, bytes: Buffer): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (key !== 'world') lines.push(`${key}: ${preview(value)}`);
  }
  lines.push(`output: ${refOf(bytes)} (${bytes.length} bytes)`);
  const world = (result.world ?? {}) as WorldBlock;
  lines.push(`plan: ${String(world.plan)}`);
  const effects = Array.isArray(world.effects) ? world.effects : [];
  if (effects.length === 0) lines.push('effects: none');
  for (const e of effects)
    lines.push(
      `effect ${String(e.id)} ${String(e.status)} ${e.record === null ? '(no record)' : String(e.record)}`,
    );
  return lines;
}

/**
 * True when a committed result is a success, as `call --strict` judges it: not `ok: false`
 * (a refusal), and no effect of its world block ended `denied` or `failed` (a denied effect's
 * result carries no `ok` at all, world-spec §4.2).
 * @internal exported for agent.spec.ts
 */
export function succeeded(result: Record<string, unknown>): boolean {
  if (result.ok === false) return false;
  const world = (result.world ?? {}) as WorldBlock;
  const effects = Array.isArray(world.effects) ? world.effects : [];
  return effects.every((e) => e.status !== 'denied' && e.status !== 'failed');
}

/** What `call` needs besides its options. */
export interface CallContext {
  env: NodeJS.ProcessEnv;
  io: Output;
  stdin: () => Promise<string>;
}

/** Options of `call`. */
export interface CallOptions extends CallArgOptions {
  session?: string;
  jsonOut?: boolean;
  strict?: boolean;
  taskId?: string;
}

/**
 * `world call <tool> …`: one MCP `tools/call`.
 * @returns the exit code: 0 committed, EXIT_INTEGRITY with --strict when it did not succeed
 *   (succeeded: ok:false, or an effect denied or failed)
 * @throws CliError exit 2 for bad options; exit 1 for a session refusal, a refused call
 *   (-32602) or a host failure (-32603, with what the head probe saw)
 */
export async function call(tool: string, options: CallOptions, ctx: CallContext): Promise<number> {
  if (options.taskId !== undefined && !TASK_ID.test(options.taskId)) {
    throw new CliError(`--task-id "${options.taskId}" ${TASK_ID_RULE}`, 2);
  }
  const args = await callArguments(options, ctx.stdin);
  const token = await requireSession(options.session, ctx.env, warner(ctx.io));
  const url = gatewayUrl(ctx.env);
  const reads = new GatewayClient(url, token);
  const mcp = await McpClient.connect(url, token);
  try {
    // The head before the call: after a host failure it tells whether a commit landed.
    const before = await headEntry(reads);
    let answer;
    try {
      answer = await mcp.callTool(
        tool,
        args,
        options.taskId === undefined ? undefined : { [MCP_TASK_ID_META_KEY]: options.taskId },
      );
    } catch (err) {
      if (err instanceof McpCallError && err.code === HOST_FAILURE_CODE) {
        throw new CliError(
          `tools/call ${tool}: host failure (MCP ${err.code} ${err.rpcMessage}); ${await headVerdict(reads, before)}`,
        );
      }
      if (err instanceof McpCallError)
        throw new CliError(`tools/call ${tool} refused (MCP ${err.code}): ${err.rpcMessage}`);
      throw err;
    }
    const first = answer.content?.[0];
    const text =
      first !== undefined && first.type === 'text'
        ? first.text
        : JSON.stringify(answer.structuredContent ?? null);
    // World sets isError on committed refusals, denials and failures (README "Results, refusals,
    // denials, `isError`"): those carry a world block and are printed as results; only a bare
    // error text is a failure.
    if (answer.isError && answer.structuredContent === undefined) {
      ctx.io.err(`tools/call ${tool} failed: ${text}`);
      return 1;
    }
    const bytes = Buffer.from(text, 'utf8');
    const result = (answer.structuredContent ?? JSON.parse(text)) as Record<string, unknown>;
    if (options.jsonOut) ctx.io.out(text);
    else for (const line of resultLines(result, bytes)) ctx.io.out(line);
    return options.strict && !succeeded(result) ? EXIT_INTEGRITY : 0;
  } finally {
    await mcp.close();
  }
}

/** The head as `{ref, index}`, or null before genesis (world-spec §5.3). */
async function headEntry(reads: GatewayClient): Promise<{ ref: string; index: number } | null> {
  let ref: string;
  try {
    ref = (await reads.text('/v1/head')).trim();
  } catch (err) {
    if (err instanceof GatewayHttpError && err.status === 404) return null;
    throw err;
  }
  const world = await reads.get<{ revision: number }>(`/v1/worlds/${ref}`);
  // The ledger keeps revision = entry index (dense log, revision + 1 per entry, DESIGN.md §7.2).
  return { ref, index: world.revision };
}

/**
 * What a host failure left behind, from the head before and after (world-spec §7.3, §4.5).
 * A probe that fails says so rather than guess.
 */
async function headVerdict(
  reads: GatewayClient,
  before: { ref: string; index: number } | null,
): Promise<string> {
  let after: { ref: string; index: number } | null;
  try {
    after = await headEntry(reads);
  } catch (err) {
    return `the head could not be read afterwards (${(err as Error).message}); page \`world log tail\` before resending`;
  }
  return headVerdictText(before, after);
}

/**
 * The sentence for a head seen before and after a host failure (world-spec §7.3).
 * @internal exported for agent.spec.ts
 */
export function headVerdictText(
  before: { ref: string; index: number } | null,
  after: { ref: string; index: number } | null,
): string {
  if (after === null) return 'no world head: nothing is committed yet';
  if (before === null || before.ref !== after.ref)
    return `a commit landed (entry ${after.index}) — do not retry`;
  return `no commit landed (the head is still entry ${after.index}); the effect may have run — check \`world log tail\` before resending a write`;
}

/** `world health`: GET /v1/health, the body as served (world-spec §5.2, §7.3), then `log key: <vkey>`. */
export async function health(env: NodeJS.ProcessEnv, io: Output): Promise<void> {
  const client = new GatewayClient(gatewayUrl(env), undefined);
  const answer = await client.raw('GET', '/v1/health');
  if (answer.status !== 200) throw httpError('/v1/health', answer);
  io.out(answer.text.trim());
  // The log's verifier key (README "Verifying the log"): what `world verify --key` and auditors
  // check against.
  const key = await client.raw('GET', '/.well-known/world-log-key');
  if (key.status !== 200) throw httpError('/.well-known/world-log-key', key);
  io.out(`log key: ${key.text.trim()}`);
}
