/**
 * Decoding a reference `tasks/send` request (world-spec §6.5), the envelope half of its
 * processing order: decode body → `jsonrpc == "2.0"` → method → params. What follows (skill
 * visibility, the one data part, the `transition_fn` pin) is InvokeSkill's. Pure.
 */
import { TASK_ID } from '@world/contracts';
import { A2A_MESSAGES, JSONRPC } from '../errors/error-map.js';
import { decodeJsonBody } from '../http/body.js';
import type { SkillCall } from './invoke-skill.js';

/** The one method of the reference surface. */
export const TASKS_SEND = 'tasks/send';

/** An envelope refusal: the JSON-RPC id to echo (null when the body did not decode) and the error. */
export interface EnvelopeRefusal {
  kind: 'refusal';
  id: unknown;
  code: number;
  message: string;
}

/** A decoded call: the id to echo and the call for InvokeSkill. */
export interface DecodedTasksSend {
  kind: 'call';
  id: unknown;
  call: SkillCall;
}

/**
 * Decodes one `tasks/send` body. A body that is not UTF-8 JSON holding one object →
 * -32600 `invalid JSON-RPC request` with id null; `jsonrpc` ≠ `"2.0"` → -32600 (id echoed);
 * another method → -32601 `method not found`; params that are not an object with a task id of
 * 1–128 `[A-Za-z0-9._-]` and a string `metadata.skill_id` → -32602 `invalid params`. The parts
 * are not judged here: a call whose parts are not exactly one `{"type":"data","data":{…}}` is
 * decoded with `args: null` and refused after the skill check, as §6.5 orders it.
 * @param bytes the request body (already bounded by A2A_BODY_MAX_BYTES)
 */
export function decodeTasksSend(bytes: Uint8Array): DecodedTasksSend | EnvelopeRefusal {
  const decoded = decodeJsonBody(bytes);
  if (!decoded.ok) return refusal(null, JSONRPC.invalidRequest, A2A_MESSAGES.invalidRequest);
  const body = decoded.value;
  if (!isObject(body)) return refusal(null, JSONRPC.invalidRequest, A2A_MESSAGES.invalidRequest);
  const id = 'id' in body ? body.id : null;
  if (body.jsonrpc !== '2.0')
    return refusal(id, JSONRPC.invalidRequest, A2A_MESSAGES.invalidRequest);
  if (body.method !== TASKS_SEND)
    return refusal(id, JSONRPC.methodNotFound, A2A_MESSAGES.methodNotFound);
  const params = body.params;
  const invalid = refusal(id, JSONRPC.invalidParams, A2A_MESSAGES.invalidParams);
  if (!isObject(params)) return invalid;
  const { id: taskId, metadata, message } = params;
  if (typeof taskId !== 'string' || !TASK_ID.test(taskId)) return invalid;
  if (!isObject(metadata) || typeof metadata.skill_id !== 'string') return invalid;
  return {
    kind: 'call',
    id,
    call: {
      taskId,
      skillId: metadata.skill_id,
      args: oneDataPart(message),
      pin: metadata.transition_fn,
    },
  };
}

/** The arguments of a message whose parts are exactly one `{"type":"data","data":{…}}`, else null. */
function oneDataPart(message: unknown): Record<string, unknown> | null {
  if (!isObject(message) || !Array.isArray(message.parts) || message.parts.length !== 1)
    return null;
  const part: unknown = message.parts[0];
  if (!isObject(part) || part.type !== 'data' || !isObject(part.data)) return null;
  return part.data;
}

function refusal(id: unknown, code: number, message: string): EnvelopeRefusal {
  return { kind: 'refusal', id, code, message };
}

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
