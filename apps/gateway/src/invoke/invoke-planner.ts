/**
 * The gateway's one way to hand a tool call to a planner (`planner.invoke`), for both surfaces.
 * A keyed call (A2A task id, MCP `world/taskId`) is watched while it waits: the planner instance
 * that took THIS request names itself in its receipt before it claims anything, and when that
 * instance stops answering its liveness subject (a SIGKILLed planner has no subscriber), or no
 * instance acknowledges the request in time (one SIGKILLed or stopped with it unread), the
 * caller is answered at once instead of after the whole deadline (DESIGN.md §2 "Per-episode
 * serialization"; world-spec §4.5, §6.5; world-internals §5.5).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  INVOKE_RECEIPT_MS,
  PLANNER_LIVENESS_MS,
  ServiceUnavailableError,
  UncertainError,
  type ReplyOf,
  type RequestOf,
} from '@world/contracts';
import { askCaller, type RpcClient } from '@world/runtime';

/** How often a keyed call still waiting for its planner checks that the planner lives. */
const RECEIVER_WATCH_MS = PLANNER_LIVENESS_MS;

/**
 * Sends `planner.invoke` and waits for its answer, at most `timeoutMs`. A keyed call asks for
 * the taker's receipt and is raced against watchReceiver: once the planner instance that took
 * it is gone, or none took it within INVOKE_RECEIPT_MS, the call answers UncertainError
 * (`invocation outcome is not confirmed; resend the same task id`). Only a resend of the same
 * task id can learn the outcome — the committed result, EffectsUnrecorded with the broker's
 * records once a dead planner's claim lapsed, or a fresh run when nothing ran
 * (InvocationClaims.claim) — and a receipt that comes after the answer is refused, so a late
 * planner never runs the request behind it. Only this request's taker is watched: an earlier
 * attempt's claim held by a dead planner says nothing about this one. A call without a task id
 * waits for its answer alone (a resend of it would run again).
 * @throws UncertainError (taker gone, or no taker), and whatever `planner.invoke` throws
 */
export async function invokePlanner(
  rpc: RpcClient,
  request: RequestOf<'planner.invoke'>,
  timeoutMs: number,
): Promise<ReplyOf<'planner.invoke'>> {
  if (request.taskId === undefined) return rpc.request('planner.invoke', request, { timeoutMs });
  const receipt = new Receipt();
  const call = rpc.request('planner.invoke', request, {
    timeoutMs,
    onReceipt: ({ caller }) => receipt.take(caller),
  });
  const stop = new AbortController();
  const gone = watchReceiver(rpc, receipt, stop.signal).then((takerGone) => {
    if (takerGone) throw new UncertainError();
    return new Promise<never>(() => undefined);
  });
  try {
    return await Promise.race([call, gone]);
  } finally {
    receipt.close();
    stop.abort();
  }
}

/**
 * The receipt of one keyed request: the caller id of the planner instance that took it, taken
 * at most once and only while the gateway still waits. Closing it (the wait for it ended, or
 * the call was answered) refuses every later receipt, in the same turn that decides the answer.
 */
class Receipt {
  private closed = false;
  private wake: ((caller: string | undefined) => void) | undefined;
  private caller: string | undefined;

  /** A taker's receipt: accepted (true) only while open and not taken yet. */
  take(caller: string): boolean {
    if (this.closed) return false;
    this.closed = true;
    this.caller = caller;
    this.wake?.(caller);
    return true;
  }

  /** Refuses every later receipt. */
  close(): void {
    this.closed = true;
    this.wake?.(this.caller);
  }

  /**
   * The taker's caller id once its receipt came, or undefined when none came within `ms` (the
   * receipt is then closed, so no planner takes the request later) or the wait was stopped.
   */
  within(ms: number, signal: AbortSignal): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(this.caller);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.close(), ms);
      const onAbort = () => this.close();
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = (caller) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
        resolve(caller);
      };
    });
  }
}

/**
 * Waits for the request's receipt, then every RECEIVER_WATCH_MS until `signal` aborts asks the
 * planner instance that took it whether it is there (askCaller). Only "no responders" counts as
 * gone: NATS knows the instance has no subscriber left; a late liveness answer (a loaded or
 * hung planner) is asked again at the next tick, and the caller's own deadline still bounds
 * the wait.
 * @returns true when no instance took the request within INVOKE_RECEIPT_MS or the one that took
 *   it has no subscriber left; false when stopped
 */
async function watchReceiver(
  rpc: RpcClient,
  receipt: Receipt,
  signal: AbortSignal,
): Promise<boolean> {
  const taker = await receipt.within(INVOKE_RECEIPT_MS, signal);
  if (taker === undefined) return !signal.aborted;
  while (!signal.aborted) {
    try {
      await sleep(RECEIVER_WATCH_MS, undefined, { signal });
      const answer = await askCaller(rpc, taker);
      if (!answer.alive && answer.cause instanceof ServiceUnavailableError && !signal.aborted)
        return true;
    } catch {
      // aborted: the loop ends
    }
  }
  return false;
}
