import { EffectsUnrecordedError, type WorldError } from '@world/contracts';
import type { LogSink } from '../log.js';

/**
 * The operator's only view of an A2A host failure (world-spec §6.5): one line
 * `a2a refusal: <method> <invocation-id>: "<cause>"`, the cause JSON-quoted so newlines stay
 * escaped, `-` when no invocation id is known. An EffectsUnrecorded cause names every record.
 * @param method `tasks/send`, `SendMessage`, `message/send`, `GetTask`…
 * @param raw the value actually thrown, when it is not the typed error itself (its stack helps)
 */
export function logA2aRefusal(
  log: LogSink,
  method: string,
  invocationId: string | undefined,
  error: WorldError,
  raw?: unknown,
): void {
  const id = invocationId ?? '-';
  if (error instanceof EffectsUnrecordedError) {
    const cause = `${error.causeText} records [${error.effectRecords.join(' ')}]`;
    log.error(
      { invocationId: error.invocationId, effectRecords: error.effectRecords },
      `a2a refusal: ${method} ${id}: ${JSON.stringify(cause)}`,
    );
    return;
  }
  const inner = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const cause = `${error.errorClass}: ${error.message}${inner}`;
  log.error(
    {
      errorClass: error.errorClass,
      ...(raw !== undefined && raw !== error && { err: raw }),
      ...(error.cause !== undefined && { cause: error.cause }),
    },
    `a2a refusal: ${method} ${id}: ${JSON.stringify(cause)}`,
  );
}
