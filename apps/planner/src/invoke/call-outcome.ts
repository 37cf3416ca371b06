import { CallCancelledError, EffectsUnrecordedError, UncertainError } from '@world/contracts';
import type { CallOutcome } from '@world/runtime';

/**
 * How a committed call ended, as `world_calls_total` counts it (packages/runtime/README.md;
 * world-spec §4.4): the world block's effect status `denied` → denied (D), `failed` → failed
 * (E); a zero-effect plan (B) or a body with `ok:false` — a handler, policy or finish refusal
 * (C) — → refused; anything else → ok (A).
 * @param output the composed output object (tool fields + `world` block)
 */
export function committedOutcome(output: Record<string, unknown>): CallOutcome {
  const world = output.world as { effects?: Array<{ status?: unknown }> } | undefined;
  const effects = world?.effects ?? [];
  const status = effects[0]?.status;
  if (status === 'denied') return 'denied';
  if (status === 'failed') return 'failed';
  if (effects.length === 0 || output.ok === false) return 'refused';
  return 'ok';
}

/**
 * How a call that ended with an error counts: an error after a handler may have run
 * (EffectsUnrecorded) or with an unknown outcome (Uncertain) → unrecorded (world-spec §4.5);
 * a call its client cancelled before the hand-off (CallCancelled) → cancelled; any other host
 * failure → failed.
 */
export function failedOutcome(err: unknown): CallOutcome {
  if (err instanceof CallCancelledError) return 'cancelled';
  return err instanceof EffectsUnrecordedError || err instanceof UncertainError
    ? 'unrecorded'
    : 'failed';
}
