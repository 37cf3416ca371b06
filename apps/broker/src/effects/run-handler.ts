import { canonicalBytes } from '@world/canonical';
import {
  HANDLER_OUTPUT_MAX_BYTES,
  RESERVED_OUTPUT_KEY,
  carriesReservedKey,
  type ParsedRequestOf,
} from '@world/contracts';
import type { EffectHandler, HandlerContext } from '../handlers/registry.js';
import { BROKER_TOOL_REF } from '../handlers/tool-identity.js';

/** How a handler run ended: its stamped output, or why it failed. */
export type HandlerRun =
  { ok: true; output: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Runs an effect's handler under its op allowlist and scope list (world-spec §2.6), bounded by
 * handlerMs, and stamps `tool` and `policy_digest` on its output (world-spec §3.0). An output
 * over HANDLER_OUTPUT_MAX_BYTES is a failed effect (its reason committed), so the composed
 * output always fits the invocation output cap and the commit.
 * Never throws: every failure is a reason (a lost lease, `leaseLost`, is one).
 */
export async function runHandler(
  handler: EffectHandler,
  request: ParsedRequestOf<'broker.effect.execute'>,
  base: Omit<HandlerContext, 'deadline' | 'signal' | 'policy'> & {
    policy: HandlerContext['policy'];
  },
  leaseLost?: AbortSignal,
): Promise<HandlerRun> {
  const { effect, payload } = request.effect;
  const op = handler.opOf === undefined ? payload.op : handler.opOf(payload);
  if (typeof op !== 'string' || !handler.ops.includes(op)) {
    return { ok: false, reason: `op ${JSON.stringify(op ?? null)} is not allowed for ${effect}` };
  }
  if (!handler.scopes.includes(base.scope)) {
    return { ok: false, reason: `scope "${base.scope}" is not served by the ${effect} handler` };
  }
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`handler exceeded ${request.handlerMs} ms`));
    }, request.handlerMs);
    leaseLost?.addEventListener(
      'abort',
      () => {
        controller.abort();
        reject(new Error('the episode lease was lost while the handler ran'));
      },
      { once: true },
    );
  });
  try {
    const ctx: HandlerContext = {
      ...base,
      deadline: Date.now() + request.handlerMs,
      signal: controller.signal,
    };
    const raw = await Promise.race([handler.run(payload, ctx), timeout]);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return { ok: false, reason: 'handler output is not a JSON object' };
    }
    if (carriesReservedKey(raw))
      return {
        ok: false,
        reason: `handler output carries the reserved key "${RESERVED_OUTPUT_KEY}"`,
      };
    const output =
      handler.stamp === false
        ? raw
        : { ...raw, tool: handler.tool ?? BROKER_TOOL_REF, policy_digest: base.policy.digest };
    const bytes = canonicalBytes(output);
    if (bytes.length > HANDLER_OUTPUT_MAX_BYTES) {
      return {
        ok: false,
        reason: `handler output is ${bytes.length} bytes, over ${HANDLER_OUTPUT_MAX_BYTES}`,
      };
    }
    return { ok: true, output: JSON.parse(bytes.toString('utf8')) as Record<string, unknown> };
  } catch (err) {
    return { ok: false, reason: (err as Error)?.message ?? String(err) };
  } finally {
    clearTimeout(timer);
  }
}
