/**
 * The gateway's one way to hand a tool call to a planner (`planner.invoke`), for both surfaces.
 * A keyed call (A2A task id, MCP `world/taskId`) is watched while it waits: the planner instance
 * that claimed it is named by the ledger's journal, and when that instance stops answering its
 * liveness subject (a SIGKILLed planner has no subscriber), the caller is answered at once
 * instead of after the whole deadline (DESIGN.md §2 "Per-episode serialization"; world-spec §4.5,
 * §6.5; world-internals §5.5).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  PLANNER_LIVENESS_MS,
  ServiceUnavailableError,
  UncertainError,
  invocationIdOf,
  type ReplyOf,
  type RequestOf,
} from '@world/contracts';
import { askCaller, type RpcClient } from '@world/runtime';

/** How often a keyed call still waiting for its planner checks that the claim's holder lives. */
const HOLDER_WATCH_MS = PLANNER_LIVENESS_MS;

/**
 * Sends `planner.invoke` and waits for its answer, at most `timeoutMs`. A keyed call is raced
 * against watchHolder: once the planner instance holding its claim is gone, the call answers
 * UncertainError (`invocation outcome is not confirmed; resend the same task id`) — the dead
 * planner's commit may still land until its claim lapses, so only a resend of the same task id
 * can learn the outcome: the committed result, or EffectsUnrecorded with the broker's records
 * once the claim lapsed, or a fresh run when nothing ran (InvocationClaims.claim).
 * @throws UncertainError (holder gone), and whatever `planner.invoke` throws
 */
export async function invokePlanner(
  rpc: RpcClient,
  request: RequestOf<'planner.invoke'>,
  timeoutMs: number,
): Promise<ReplyOf<'planner.invoke'>> {
  const call = rpc.request('planner.invoke', request, { timeoutMs });
  if (request.taskId === undefined) return call;
  const invocationId = invocationIdOf(request.surface, request.session.episodeId, request.taskId);
  const stop = new AbortController();
  const gone = watchHolder(rpc, invocationId, stop.signal).then((holderGone) => {
    if (holderGone) throw new UncertainError();
    return new Promise<never>(() => undefined);
  });
  try {
    return await Promise.race([call, gone]);
  } finally {
    stop.abort();
  }
}

/**
 * Every HOLDER_WATCH_MS until `signal` aborts: reads the invocation's journal view
 * (`ledger.invocation.get`) and, while it is a live claim naming its holder, asks that planner
 * instance whether it is there (askCaller). A read that fails, or an ask answered late, is tried
 * again at the next tick.
 * @returns true once the holder of the live claim has no subscriber left; false when stopped
 */
async function watchHolder(
  rpc: RpcClient,
  invocationId: string,
  signal: AbortSignal,
): Promise<boolean> {
  while (!signal.aborted) {
    try {
      await sleep(HOLDER_WATCH_MS, undefined, { signal });
      const view = await rpc.request(
        'ledger.invocation.get',
        { invocationId },
        { timeoutMs: PLANNER_LIVENESS_MS },
      );
      if (view.state !== 'in-flight' || view.holder === undefined) continue;
      const answer = await askCaller(rpc, view.holder);
      // Only "no responders" is taken for gone: NATS knows the instance has no subscriber left.
      // A late answer (a loaded or hung planner) is asked again at the next tick; the caller's
      // own deadline still bounds the wait.
      if (!answer.alive && answer.cause instanceof ServiceUnavailableError && !signal.aborted)
        return true;
    } catch {
      // aborted, or the ledger did not answer this tick: look again at the next one
    }
  }
  return false;
}
