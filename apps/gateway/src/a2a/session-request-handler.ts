import {
  AgentCard,
  type GetTaskRequest,
  type Message,
  type SendMessageRequest,
  type Task,
} from '@a2a-js/sdk';
import { JsonRpcTransportError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import {
  READ_DEADLINE_MS,
  TASK_ID,
  invocationIdOf,
  type ReplyOf,
  type Session,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { A2A_MESSAGES, JSONRPC, a2aErrorOf, asWorldError } from '../errors/error-map.js';
import type { LogSink } from '../log.js';
import { currentCardJson } from './agent-cards.js';
import type { InvokeSkill, SkillCall } from './invoke-skill.js';
import { logA2aRefusal } from './refusal-log.js';
import { committedOfReply, completedTask, taskOfInvocation } from './task-views.js';
import type { ToolSurface } from './tool-surface.js';
import { isObject } from './tasks-send.js';

/** The A2A 1.0 error codes World answers with (ecosystem.md §2.3), with their fixed texts. */
export const A2A_V1_ERRORS = {
  taskNotFound: { code: -32001, message: 'task not found' },
  taskNotCancelable: { code: -32002, message: 'task cannot be canceled' },
  pushNotSupported: { code: -32003, message: 'push notifications are not supported' },
  unsupported: { code: -32004, message: 'operation not supported' },
  extendedCard: { code: -32007, message: 'no extended agent card is configured' },
  versionNotSupported: {
    code: -32009,
    message: 'A2A-Version not supported: this agent serves 1.0 and 0.3',
  },
} as const;

/** A JSON-RPC error as the handler raised it. */
export interface Refusal {
  code: number;
  message: string;
}

/** What a handler needs besides the session (the A2A endpoint's own injectables). */
export interface HandlerDeps {
  invokeSkill: InvokeSkill;
  surface: ToolSurface;
  /** GetTask reads `ledger.invocation.get` */
  rpc: RpcClient;
  log: LogSink;
}

/**
 * The A2A request handler of one JSON-RPC POST for one session, behind the SDK's 1.0 and 0.3
 * JSON-RPC transports (ecosystem.md §2.4, §8). No executor, no event bus, no task store: a
 * SendMessage is one tool call (InvokeSkill) whose committed output is the task, and GetTask
 * reads the ledger (`ledger.invocation.get`), so every replica answers the same.
 *
 * SendMessage: the idempotency key — and so the task id — is `message.messageId` (1–128 of
 * `[A-Za-z0-9._-]`; A2A 1.0 lets no client choose a task id); the tool is `metadata.skill_id` of
 * the request (`params.metadata`, where the SDK client puts request metadata), or of the message
 * when the request has none; `metadata.transition_fn` pins the source the same way; the
 * arguments are the message's one data part. A message naming a task (a follow-up) is refused:
 * World's tasks take one message. The task's context is the session's episode.
 *
 * Every refusal is raised as an SDK JsonRpcTransportError carrying exactly the code and fixed
 * message of the gateway's error table (world-spec §6.5), never an executor failure (whose text
 * would leak, ecosystem.md §8); the endpoint answers any other SDK error with fixed texts.
 */
export class SessionRequestHandler implements A2ARequestHandler {
  /** set when the invocation deadline ended the request: the answer closes the connection */
  closeConnection = false;
  /** the last refusal this handler raised (the endpoint keeps these, and fixes any other) */
  refusal: Refusal | undefined;

  /**
   * @param session the caller's live session
   * @param method the JSON-RPC method, for the refusal log
   * @param origin `<scheme>://<host>` of the request, for the card
   */
  constructor(
    private readonly session: Session,
    private readonly deps: HandlerDeps,
    private readonly method: string,
    private readonly origin: string,
  ) {}

  /** The session's 1.0 card (the 0.3 transport reads it to refuse streaming). */
  async getAgentCard(): Promise<AgentCard> {
    try {
      return AgentCard.fromJSON(
        currentCardJson(await this.deps.surface.snapshot(this.session), this.origin),
      );
    } catch (err) {
      return this.refuse(err, undefined);
    }
  }

  /** There is no extended card: the card is already the session's own. */
  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return this.reject(A2A_V1_ERRORS.extendedCard);
  }

  /** SendMessage / message/send: one tool call; its committed output is the COMPLETED task. */
  async sendMessage(params: SendMessageRequest): Promise<Task> {
    const message = params.message;
    if (message === undefined || !TASK_ID.test(message.messageId)) return this.invalidParams();
    const taskId = message.messageId;
    if (message.taskId !== '') return this.followUp(message.taskId);
    if (message.contextId !== '' && message.contextId !== this.session.episodeId)
      return this.invalidParams();
    const call = this.skillCall(params, message);
    if (call === null) return this.invalidParams();
    const invocationId = invocationIdOf('a2a', this.session.episodeId, taskId);
    try {
      const reply = await this.deps.invokeSkill.execute(this.session, call);
      return completedTask(taskId, this.session.episodeId, committedOfReply(reply));
    } catch (err) {
      return this.refuse(err, invocationId, true);
    }
  }

  /** GetTask / tasks/get: what the ledger holds for `a2a:<episode>:<id>`. */
  async getTask(params: GetTaskRequest): Promise<Task> {
    if (params.id === '') return this.invalidParams();
    if (!TASK_ID.test(params.id)) return this.reject(A2A_V1_ERRORS.taskNotFound);
    const invocationId = invocationIdOf('a2a', this.session.episodeId, params.id);
    let invocation: ReplyOf<'ledger.invocation.get'>;
    try {
      invocation = await this.deps.rpc.request(
        'ledger.invocation.get',
        { invocationId },
        { timeoutMs: READ_DEADLINE_MS },
      );
    } catch (err) {
      return this.refuse(err, invocationId);
    }
    const task = taskOfInvocation(params.id, this.session.episodeId, invocation);
    return task ?? this.reject(A2A_V1_ERRORS.taskNotFound);
  }

  /** Nothing runs after its answer, so nothing can be canceled; an unknown task is not found. */
  async cancelTask(params: { id: string }): Promise<Task> {
    await this.getTask({ tenant: '', id: params.id });
    return this.reject(A2A_V1_ERRORS.taskNotCancelable);
  }

  // The card says streaming: false and pushNotifications: false.
  sendMessageStream(): AsyncGenerator<never> {
    throw this.raise(A2A_V1_ERRORS.unsupported);
  }

  resubscribe(): AsyncGenerator<never> {
    throw this.raise(A2A_V1_ERRORS.unsupported);
  }

  /** Listing would need a ledger index of A2A tasks by episode, which World does not keep. */
  listTasks(): Promise<never> {
    return this.reject(A2A_V1_ERRORS.unsupported);
  }

  /** Push notifications: not offered (the card says so), all four config methods refuse. */
  createTaskPushNotificationConfig(): Promise<never> {
    return this.reject(A2A_V1_ERRORS.pushNotSupported);
  }

  getTaskPushNotificationConfig(): Promise<never> {
    return this.reject(A2A_V1_ERRORS.pushNotSupported);
  }

  listTaskPushNotificationConfigs(): Promise<never> {
    return this.reject(A2A_V1_ERRORS.pushNotSupported);
  }

  deleteTaskPushNotificationConfig(): Promise<never> {
    return this.reject(A2A_V1_ERRORS.pushNotSupported);
  }

  /**
   * The call a message carries, or null when its metadata is not usable: `skill_id` must be a
   * string, and when both the request and the message name one (or a pin) they must agree.
   */
  private skillCall(params: SendMessageRequest, message: Message): SkillCall | null {
    const outer = isObject(params.metadata) ? params.metadata : {};
    const inner = isObject(message.metadata) ? message.metadata : {};
    const skillId = agreed(outer.skill_id, inner.skill_id);
    const pin = agreed(outer.transition_fn, inner.transition_fn);
    if (typeof skillId !== 'string' || pin === CONFLICT) return null;
    const part = message.parts.length === 1 ? message.parts[0]!.content : undefined;
    const args = part?.$case === 'data' && isObject(part.value) ? part.value : null;
    return { taskId: message.messageId, skillId, args, pin };
  }

  /** A follow-up message to a task: an unknown task is not found, a known one takes no more. */
  private async followUp(taskId: string): Promise<never> {
    await this.getTask({ tenant: '', id: taskId });
    return this.reject(A2A_V1_ERRORS.unsupported);
  }

  private invalidParams(): Promise<never> {
    return this.reject({ code: JSONRPC.invalidParams, message: A2A_MESSAGES.invalidParams });
  }

  /**
   * Maps a failure through the one error table; host failures are logged with their cause.
   * @param keyed the failure ended the tool call of task `invocationId` (a2aErrorOf)
   */
  private refuse(err: unknown, invocationId: string | undefined, keyed = false): never {
    const error = asWorldError(err);
    const answer = a2aErrorOf(error, keyed);
    if (answer.host) logA2aRefusal(this.deps.log, this.method, invocationId, error, err);
    if (answer.closeConnection) this.closeConnection = true;
    throw this.raise(answer);
  }

  private reject(refusal: Refusal): Promise<never> {
    return Promise.reject(this.raise(refusal));
  }

  private raise(refusal: Refusal): JsonRpcTransportError {
    this.refusal = { code: refusal.code, message: refusal.message };
    return new JsonRpcTransportError({
      jsonrpc: '2.0',
      id: null,
      error: { code: refusal.code, message: refusal.message },
    });
  }
}

const CONFLICT = Symbol('conflict');

/** One value from two places: either may be absent; both present must be equal. */
function agreed(outer: unknown, inner: unknown): unknown {
  if (outer === undefined) return inner;
  if (inner === undefined || inner === outer) return outer;
  return CONFLICT;
}
