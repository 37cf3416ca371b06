/**
 * Whether a planner instance is still there, asked on its own liveness subject (one ask for the
 * broker's lease queue and the waiting gateway's holder watch; DESIGN.md §2 "Per-episode
 * serialization"). A resend's planner does not ask: whether a live claim's resend is told "not
 * confirmed" depends only on the broker's effect intents (InvocationClaims.claim).
 */
import { PLANNER_LIVENESS_MS, callerSubject, type ReplyOf } from '@world/contracts';
import type { RpcClient } from './rpc.js';

/** What a liveness ask found: the instance answered as itself (its reply), or it is gone. */
export type CallerAnswer =
  { alive: true; reply: ReplyOf<'planner.alive'> } | { alive: false; cause: unknown };

/**
 * Asks `planner.alive.<caller>` (contracts callerSubject), which only that planner instance
 * subscribes to for as long as its connection lives. An answer naming `caller` within
 * PLANNER_LIVENESS_MS is alive; "no responders" (a SIGKILLed process has no subscriber), a
 * timeout (a hung or merely loaded one), any other failure to answer, or an answer naming another
 * caller is not alive, with its `cause`. What a caller takes for gone is its own rule, by what a
 * wrong guess costs: the broker's lease queue drops a waiter that is not alive (nothing of the call
 * was written yet, and a hung planner must not hold the queue); the gateway's holder watch takes
 * only "no responders" (ServiceUnavailableError: NATS knows no subscriber is left), since "gone"
 * there answers a call that may still commit, and asks a late answer again at its next tick.
 * @param caller a planner instance's caller id (CallerIdSchema)
 * @param invocationId ask also whether this invocation's client cancelled it (`reply.cancelled`)
 * @returns never rejects
 */
export async function askCaller(
  rpc: RpcClient,
  caller: string,
  invocationId?: string,
): Promise<CallerAnswer> {
  try {
    const reply = await rpc.request(
      callerSubject(caller),
      invocationId === undefined ? {} : { invocationId },
      { timeoutMs: PLANNER_LIVENESS_MS },
    );
    return reply.caller === caller
      ? { alive: true, reply }
      : { alive: false, cause: new Error(`caller ${reply.caller} answered for ${caller}`) };
  } catch (cause) {
    return { alive: false, cause };
  }
}
