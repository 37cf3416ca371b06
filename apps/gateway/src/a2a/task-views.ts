/**
 * How a committed (or pending) invocation reads as an A2A task: the reference `tasks/send` result
 * of world-spec §6.5 and the A2A 1.0 Task of ecosystem.md §2.3. Pure.
 */
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { decodeBase64 } from '@world/canonical';
import { InternalError, MESSAGES, invocationIdOf, type ReplyOf } from '@world/contracts';

/** A committed invocation as both A2A surfaces answer it. */
export interface CommittedTask {
  /** `a2a:<episode>:<task>` */
  invocationId: string;
  /** the committed output object's exact bytes, as UTF-8 text (canonical JSON) */
  outputText: string;
  worldRef: string;
  entryIndex: number;
}

/** The artifact id of the one artifact a World task carries: the output object. */
const OUTPUT_ARTIFACT_ID = 'output';
/** The media type of the output part. */
const OUTPUT_MEDIA_TYPE = 'application/json';

/**
 * The committed output of a planner reply. Committed bytes that are not base64 are the
 * planner's fault: a host failure, never the caller's.
 * @throws InternalError
 */
export function committedOfReply(reply: ReplyOf<'planner.invoke'>): CommittedTask {
  return {
    invocationId: reply.invocationId,
    outputText: outputTextOf(reply.outputBytes),
    worldRef: reply.worldRef,
    entryIndex: reply.entryIndex,
  };
}

/**
 * The body of a `tasks/send` success (world-spec §6.5), written around the committed output's
 * own bytes so a resend answers byte for byte what the first call answered (§4.6, §11 scenario
 * 19): `{"jsonrpc":"2.0","id":<id>,"result":{"id":<task>,"status":{"state":"completed"},
 * "artifacts":[{"parts":[{"type":"data","data":<output>}]}],"metadata":{"invocation_id",
 * "world_ref","entry_index"}}}`.
 * @param requestId the JSON-RPC id, echoed verbatim
 */
export function tasksSendResultText(
  requestId: unknown,
  taskId: string,
  task: CommittedTask,
): string {
  const metadata = JSON.stringify({
    invocation_id: task.invocationId,
    world_ref: task.worldRef,
    entry_index: task.entryIndex,
  });
  return (
    `{"jsonrpc":"2.0","id":${JSON.stringify(requestId ?? null)},"result":{` +
    `"id":${JSON.stringify(taskId)},"status":{"state":"completed"},` +
    `"artifacts":[{"parts":[{"type":"data","data":${task.outputText}}]}],` +
    `"metadata":${metadata}}}`
  );
}

/**
 * A committed invocation as an A2A 1.0 Task: state COMPLETED, one artifact whose one part holds
 * the output object as `data`, the same metadata keys as `tasks/send`. The task's context is
 * the session's episode: tasks are per episode (world-spec §6.5 invocation ids).
 */
export function completedTask(taskId: string, episodeId: string, task: CommittedTask): Task {
  const output = JSON.parse(task.outputText) as Record<string, unknown>;
  return {
    id: taskId,
    contextId: episodeId,
    status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
    artifacts: [
      {
        artifactId: OUTPUT_ARTIFACT_ID,
        name: '',
        description: '',
        parts: [dataPart(output)],
        metadata: undefined,
        extensions: [],
      },
    ],
    history: [],
    metadata: {
      invocation_id: task.invocationId,
      world_ref: task.worldRef,
      entry_index: task.entryIndex,
    },
  };
}

/**
 * What the ledger knows of a task id, as an A2A 1.0 Task (GetTask): committed → COMPLETED with
 * the committed output; in flight → WORKING; ended without a commit → FAILED with the §6.5 text
 * `invocation was not committed; send a new task id` when nothing ran (abandoned), else
 * `invocation outcome is not confirmed; resend the same task id` (uncertain, lapsed: its effect
 * may have run, and a resend answers with its records); never claimed → undefined (TaskNotFound).
 */
export function taskOfInvocation(
  taskId: string,
  episodeId: string,
  invocation: ReplyOf<'ledger.invocation.get'>,
): Task | undefined {
  const invocationId = invocationIdOf('a2a', episodeId, taskId);
  switch (invocation.state) {
    case 'none':
      return undefined;
    case 'committed':
      return completedTask(taskId, episodeId, {
        invocationId,
        outputText: outputTextOf(invocation.output),
        worldRef: invocation.worldRef,
        entryIndex: invocation.entryIndex,
      });
    case 'in-flight':
      return pendingTask(taskId, episodeId, invocationId, TaskState.TASK_STATE_WORKING);
    case 'ended':
      // Only an attempt under which nothing ran may be told to start over; one whose effect
      // may have run is never invited to a new task id (world-spec §4.5, §4.6).
      return pendingTask(
        taskId,
        episodeId,
        invocationId,
        TaskState.TASK_STATE_FAILED,
        invocation.reason === 'abandoned' ? MESSAGES.notCommitted : MESSAGES.uncertain,
      );
  }
}

function pendingTask(
  taskId: string,
  episodeId: string,
  invocationId: string,
  state: TaskState,
  text?: string,
): Task {
  const message: Message | undefined =
    text === undefined
      ? undefined
      : {
          messageId: `${taskId}.status`,
          contextId: episodeId,
          taskId,
          role: Role.ROLE_AGENT,
          parts: [
            {
              content: { $case: 'text', value: text },
              metadata: undefined,
              filename: '',
              mediaType: '',
            },
          ],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
  return {
    id: taskId,
    contextId: episodeId,
    status: { state, message, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: { invocation_id: invocationId },
  };
}

function dataPart(value: Record<string, unknown>): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: OUTPUT_MEDIA_TYPE,
  };
}

function outputTextOf(base64: string): string {
  try {
    return decodeBase64(base64, 'output').toString('utf8');
  } catch {
    throw new InternalError();
  }
}
