import {
  BadRequestError,
  CallCancelledError,
  EffectsUnrecordedError,
  InternalError,
  MCP_TASK_ID_META_KEY,
  READ_DEADLINE_MS,
  REPLY_GRACE_MS,
  TASK_ID,
  TASK_ID_RULE,
  type Session,
  type ToolDescriptor,
  type WorldError,
} from '@world/contracts';
import { decodeBase64 } from '@world/canonical';
import {
  ENTRY_INDEX_ATTRIBUTE,
  EPISODE_ATTRIBUTE,
  INVOCATION_ATTRIBUTE,
  SERVICE_ATTRIBUTE,
  SpanKind,
  annotateSpan,
  contextOfTraceparent,
  inSpan,
  type RpcClient,
} from '@world/runtime';
import { asWorldError, mcpErrorOf } from '../errors/error-map.js';
import { invokePlanner } from '../invoke/invoke-planner.js';
import type { LogSink } from '../log.js';
import { callCancel, type CallCancel, type McpCancellations } from './cancellation.js';
import { DEFAULT_PROTOCOL_VERSION, type RequestId } from './protocol.js';

/** An MCP tool as `tools/list` lists it (world-spec §6.2). */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

/** The `_meta` keys of a tools/call result that cite its log entry, so an agent can prove it. */
const ENTRY_INDEX_META_KEY = 'world/entryIndex';
const ENTRY_HASH_META_KEY = 'world/entryHash';

/** A `tools/call` result: the output object twice (world-spec §6.2), and its log entry in `_meta`. */
export interface McpCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: Record<string, unknown>;
  /** true when the output reports a refusal, denial or failure (isToolError); else absent */
  isError?: true;
  _meta: Record<string, unknown>;
}

/** The failure that ends an exchange: answered as one plain JSON envelope (world-spec §6.3). */
export interface HostFailure {
  code: number;
  message: string;
}

/** What an exchange needs from the gateway. */
export interface ExchangeDeps {
  rpc: RpcClient;
  log: LogSink;
  /** the invocation deadline (WORLD_CALL_DEADLINE_MS) */
  callDeadlineMs: number;
  clock?: () => number;
  /** the gateway's in-flight calls, which `notifications/cancelled` cancels by request id */
  cancellations?: McpCancellations;
}

/**
 * One MCP POST for one session: the session's tool surface (read once per POST, world-internals
 * §7.1 "auth once per POST … plus K sequential invokes"), batch items run one at a time and
 * stop at the first host failure, which then answers the whole POST (world-spec §6.2, §6.3).
 */
export class McpExchange {
  /** set by the first host failure; the endpoint turns it into the POST's one answer */
  hostFailure: HostFailure | undefined;
  /** the ids of this POST's `tools/call` requests its client cancelled: answered with nothing */
  readonly cancelled = new Set<RequestId>();
  private surface: Promise<ToolDescriptor[]> | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  /**
   * @param session the caller's live session
   * @param requestId the JSON-RPC id the host-failure envelope echoes (null for batches)
   * @param rawArguments each `tools/call`'s arguments as the client sent them
   *   (toolCallArguments), used instead of the SDK's re-validated copy
   */
  constructor(
    readonly session: Session,
    readonly requestId: string | number | null,
    private readonly deps: ExchangeDeps,
    private readonly rawArguments: Map<RequestId, unknown[]> = new Map(),
    /** the revision the POST speaks (span attribute `mcp.protocol.version`) */
    private readonly protocolVersion: string = DEFAULT_PROTOCOL_VERSION,
    /** fires when the client closes the POST's stream before its answer: cancels every call */
    private readonly closed?: AbortSignal,
  ) {}

  /**
   * `tools/list`: exactly the tools `planner.tools.list` admits for the session's grants, in
   * registry order (world-spec §6.2, §11 scenario 10).
   * @throws McpFailure (a host failure: -32603)
   */
  async listTools(id?: RequestId, meta?: Record<string, unknown>): Promise<McpTool[]> {
    return this.traced('tools/list', undefined, id, meta, () =>
      this.run(async () => (await this.tools()).map(toMcpTool), undefined),
    );
  }

  /**
   * `tools/call`: `planner.invoke` admits the tool against the session's grants first — a tool
   * outside the surface is `unknown tool "<name>"` and nothing runs or is written — then runs it on the `mcp` surface, with the caller's `world/taskId` when given
   * (world-spec §6.2, §6.3; DESIGN.md §7.4). Calls of one POST run one after another. The
   * arguments are the client's own object (rawArguments), every key kept, so the plan refuses
   * an unknown `__proto__` like any other unknown key (world-spec §3.0).
   * @param params the request's `params` (`name`, `arguments`, `_meta`)
   * @param id the request's JSON-RPC id
   * @throws McpFailure
   */
  callTool(
    params: {
      name: string;
      arguments?: unknown;
      _meta?: Record<string, unknown>;
    },
    id: RequestId,
  ): Promise<McpCallResult> {
    const raw = this.rawArguments.get(id);
    const call =
      raw === undefined || raw.length === 0 ? params : { ...params, arguments: raw.shift() };
    const cancel = callCancel({
      rpc: this.deps.rpc,
      log: this.deps.log,
      registry: this.deps.cancellations,
      credentialId: this.session.credentialId,
      id,
      closed: this.closed,
      onCancel: () => this.cancelled.add(id),
    });
    const run = this.chain.then(() =>
      this.traced('tools/call', params.name, id, params._meta, () =>
        this.run(
          () => this.invoke(call, cancel),
          params.name,
          id,
          params._meta?.[MCP_TASK_ID_META_KEY] !== undefined,
        ),
      ),
    );
    this.chain = run.catch(() => undefined);
    void run.catch(() => undefined).finally(cancel.done);
    return run;
  }

  /**
   * Runs one MCP request inside its server span, named and attributed by the OpenTelemetry MCP
   * semantic conventions: `tools/call <tool>` (or `tools/list`) with `mcp.method.name`,
   * `jsonrpc.request.id`, `mcp.protocol.version`, `gen_ai.tool.name` and
   * `gen_ai.operation.name` `execute_tool` for a call; `error.type` is `tool_error` for an
   * `isError` result and the JSON-RPC code for an error. The span continues the caller's trace
   * from `params._meta.traceparent`/`tracestate` when given, else the HTTP request's.
   */
  private traced<T>(
    method: string,
    tool: string | undefined,
    id: RequestId | undefined,
    meta: Record<string, unknown> | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    return inSpan(
      tool === undefined ? method : `${method} ${tool}`,
      {
        [SERVICE_ATTRIBUTE]: 'gateway',
        'mcp.method.name': method,
        'mcp.protocol.version': this.protocolVersion,
        ...(id !== undefined && { 'jsonrpc.request.id': String(id) }),
        ...(tool !== undefined && {
          'gen_ai.tool.name': tool,
          'gen_ai.operation.name': 'execute_tool',
        }),
      },
      async (span) => {
        const result = await work();
        if ((result as { isError?: unknown }).isError === true)
          span.setAttribute('error.type', 'tool_error');
        return result;
      },
      {
        kind: SpanKind.SERVER,
        parent: contextOfTraceparent(meta?.['traceparent'], meta?.['tracestate']),
        errorType: (err) => (err instanceof McpFailure ? String(err.code) : 'Error'),
      },
    );
  }

  private async invoke(
    params: {
      name: string;
      arguments?: unknown;
      _meta?: Record<string, unknown>;
    },
    cancel: CallCancel,
  ): Promise<McpCallResult> {
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new BadRequestError('arguments must be a JSON object');
    }
    const taskId = params._meta?.[MCP_TASK_ID_META_KEY];
    if (taskId !== undefined && (typeof taskId !== 'string' || !TASK_ID.test(taskId))) {
      throw new BadRequestError(`_meta["${MCP_TASK_ID_META_KEY}"] ${TASK_ID_RULE}`);
    }
    // Cancelled while it waited behind an earlier call of the same POST: never sent.
    if (cancel.signal.aborted) {
      throw new CallCancelledError('-', 'the call was cancelled by its client before it was sent');
    }
    // The planner admits the tool against the same grants before anything runs and answers
    // UnknownToolError (→ -32602) otherwise: no separate tools.list round trip per call.
    const reply = await invokePlanner(
      this.deps.rpc,
      {
        surface: 'mcp',
        session: this.session,
        toolId: params.name,
        arguments: args,
        ...(taskId !== undefined && { taskId }),
        callId: cancel.callId,
      },
      this.deps.callDeadlineMs + REPLY_GRACE_MS,
    );
    annotateSpan({
      [INVOCATION_ATTRIBUTE]: reply.invocationId,
      [EPISODE_ATTRIBUTE]: this.session.episodeId,
      [ENTRY_INDEX_ATTRIBUTE]: reply.entryIndex,
    });
    return {
      content: [{ type: 'text', text: this.committedText(reply.outputBytes, reply.invocationId) }],
      structuredContent: reply.output,
      ...(isToolError(reply.output) && { isError: true }),
      // Where the call is in the log, so an agent can cite it (A2A: metadata.entry_index).
      _meta: { [ENTRY_INDEX_META_KEY]: reply.entryIndex, [ENTRY_HASH_META_KEY]: reply.entryHash },
    };
  }

  /**
   * The committed output bytes as text. A reply that does not carry standard base64 is the
   * planner's fault, never the caller's: a host failure, not invalid params.
   */
  private committedText(outputBytes: string, invocationId: string): string {
    try {
      return decodeBase64(outputBytes, 'outputBytes').toString('utf8');
    } catch (err) {
      this.deps.log.error(
        { err, invocationId },
        'planner.invoke answered outputBytes that are not base64',
      );
      throw new InternalError();
    }
  }

  private tools(): Promise<ToolDescriptor[]> {
    this.surface ??= this.deps.rpc
      .request(
        'planner.tools.list',
        { grants: this.session.grants, now: (this.deps.clock ?? Date.now)() },
        { timeoutMs: READ_DEADLINE_MS },
      )
      .then((reply) => reply.tools);
    return this.surface;
  }

  /**
   * Runs one method; any failure becomes an McpFailure through the error table. A host failure
   * is remembered (and logged with its cause — the client only ever sees the fixed text, except
   * a keyed call's outcome answers: mcpErrorOf), and every later item of the same POST fails the
   * same way without running.
   * @param keyed the call carries `_meta["world/taskId"]`
   */
  private async run<T>(
    work: () => Promise<T>,
    toolName: string | undefined,
    id?: RequestId,
    keyed = false,
  ): Promise<T> {
    if (this.hostFailure !== undefined)
      throw new McpFailure(this.hostFailure.code, this.hostFailure.message);
    try {
      return await work();
    } catch (err) {
      const error = asWorldError(err);
      const mapped = mcpErrorOf(error, keyed);
      // A cancelled request is answered with nothing (its answer is dropped), so its failure —
      // CallCancelled, or any other — never becomes the whole POST's host failure; the operator
      // still sees a host failure of one that had passed the hand-off (EffectsUnrecorded).
      const cancelled = id !== undefined && this.cancelled.has(id);
      if (mapped.host && !(error instanceof CallCancelledError)) {
        this.logRefusal(error, err, toolName);
      }
      if (mapped.host && !cancelled) {
        this.hostFailure = { code: mapped.code, message: mapped.message };
      }
      throw new McpFailure(mapped.code, mapped.message);
    }
  }

  /**
   * The operator's only view of a host failure (world-internals §5.5): one line naming the
   * invocation and, for EffectsUnrecorded, every effect record ref —
   * `mcp refusal: tools/call <id>: "<cause> records [sha256:…]"`.
   */
  private logRefusal(error: WorldError, raw: unknown, toolName: string | undefined): void {
    const method = toolName === undefined ? 'tools/list' : 'tools/call';
    if (error instanceof EffectsUnrecordedError) {
      const cause = `${error.causeText} records [${error.effectRecords.join(' ')}]`;
      this.deps.log.error(
        { invocationId: error.invocationId, effectRecords: error.effectRecords, tool: toolName },
        `mcp refusal: ${method} ${error.invocationId}: ${JSON.stringify(cause)}`,
      );
      return;
    }
    const cause = `${error.errorClass}: ${error.message}`;
    this.deps.log.error(
      { errorClass: error.errorClass, tool: toolName, ...(raw !== error && { err: raw }) },
      `mcp refusal: ${method} -: ${JSON.stringify(cause)}`,
    );
  }
}

/**
 * Whether a committed output tells the model its call did not succeed — MCP `isError: true`
 * (server/tools "error handling"): the output's `ok` is false (a plan refusal or a finish phase
 * that refused), or an effect of its world block ended `denied` or `failed`
 * (results-and-errors.txt "effects[].status ok, failed or denied"). The output object itself is
 * never changed; `isError` sits beside it.
 */
function isToolError(output: Record<string, unknown>): boolean {
  if (output['ok'] === false) return true;
  const world = output['world'];
  if (typeof world !== 'object' || world === null) return false;
  const effects = (world as { effects?: unknown }).effects;
  if (!Array.isArray(effects)) return false;
  return effects.some((e) => {
    const status = (e as { status?: unknown } | null)?.status;
    return status === 'denied' || status === 'failed';
  });
}

/**
 * A JSON-RPC error to answer with (the SDK's low-level Server sends `code` and `message` as
 * they are). Kept separate from the SDK's ProtocolError so this module stays SDK-free.
 */
export class McpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'McpFailure';
  }
}

/**
 * A descriptor as an MCP tool: name = tool id verbatim (ids are `[a-z0-9-]`, so the reversible
 * escape of world-internals §7.1 is the identity), a schema without a top-level `type` gains
 * `"type":"object"` (world-spec §6.2).
 */
function toMcpTool(descriptor: ToolDescriptor): McpTool {
  return {
    name: descriptor.id,
    title: descriptor.title,
    description: descriptor.description,
    inputSchema: withObjectType(descriptor.inputSchema),
    outputSchema: withObjectType(descriptor.outputSchema),
  };
}

function withObjectType(schema: Record<string, unknown>): Record<string, unknown> {
  return 'type' in schema ? schema : { type: 'object', ...schema };
}
