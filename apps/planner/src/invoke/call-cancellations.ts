import { CallCancelledError, REPLY_GRACE_MS } from '@world/contracts';
import { serviceLogger, worldMetrics, type RpcClient } from '@world/runtime';
import type { Invocation } from './invocation.js';

const log = serviceLogger('planner');

/**
 * The client cancellations one planner replica has heard (`planner.call.cancelled`, broadcast to
 * every replica by the gateway on MCP `notifications/cancelled` or a closed request stream), and
 * the calls it runs that carry a cancellable `callId`.
 *
 * The rule it serves (README "Cancellation"; MCP basic/utilities/cancellation: the receiver
 * stops processing a cancelled request if it still can): a call is stopped when it is cancelled
 * before its effect is handed to the broker — the planner asks isCancelled at its last step
 * before `broker.effect.execute` (or, for a plan refusal, before `ledger.commit`) — or while
 * the broker waits for the episode lease (the broker's liveness question, answered by
 * cancelledInvocation). Stopped means nothing was written: no intent, no spend, no record, no log
 * entry (world-internals §5.5: before the intent an effect is "never dispatched"). Once the
 * broker has taken the effect, the call completes and commits as any other.
 *
 * A cancellation may be heard before the call itself arrives (the two travel on different
 * subjects), so each is kept for one whole call deadline plus the reply grace, then forgotten.
 */
export class CallCancellations {
  /** callId → epoch ms until which its cancellation is kept */
  private readonly cancelled = new Map<string, number>();
  /**
   * invocationId → the callIds of the calls this replica runs under it, oldest first. Several,
   * not one: a resend of a task id has the same invocationId (`mcp:<episode>:<task>`) as the call
   * it repeats, and the call ending its claim is still tracked for a moment after a resend took
   * the claim over; neither's arrival or end may hide the other from the broker.
   */
  private readonly running = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  /**
   * @param rpc the planner's client; the registry listens to `planner.call.cancelled` on it
   * @param keepMs how long a heard cancellation is kept (ms): the call deadline
   * @param replica the `replica` label of `world_call_cancels_total`
   */
  constructor(
    rpc: RpcClient,
    private readonly keepMs: number,
    private readonly replica: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.unsubscribe = rpc.subscribe('planner.call.cancelled', ({ callId }) => this.heard(callId));
  }

  /**
   * Marks a call as running on this replica until the returned function is called. A keyed call
   * is tracked once it holds its claim (InvokeTool), so the newest call tracked under an
   * invocationId is the one holding its claim — the only one that can wait for the lease.
   * @returns the stop of tracking (idempotent)
   */
  track(inv: Invocation): () => void {
    const callId = inv.req.callId;
    if (callId === undefined) return () => undefined;
    let calls = this.running.get(inv.invocationId);
    if (calls === undefined) this.running.set(inv.invocationId, (calls = new Set()));
    calls.add(callId);
    return () => {
      const current = this.running.get(inv.invocationId);
      current?.delete(callId);
      if (current?.size === 0) this.running.delete(inv.invocationId);
    };
  }

  /**
   * Stops a call whose client cancelled it, at a point where nothing of it has been handed on.
   * @throws CallCancelledError when `inv`'s callId was cancelled
   */
  stopIfCancelled(inv: Invocation): void {
    const callId = inv.req.callId;
    if (callId !== undefined && this.isCancelled(callId)) {
      throw new CallCancelledError(inv.invocationId);
    }
  }

  /**
   * Whether the running invocation's client cancelled it (the broker's liveness question for a
   * call waiting for the episode lease), asked of the newest call tracked under it: the one
   * holding the claim (track).
   * @param invocationId an invocation this replica runs; any other is not cancelled
   */
  cancelledInvocation(invocationId: string): boolean {
    const calls = this.running.get(invocationId);
    const newest = calls === undefined ? undefined : [...calls].at(-1);
    return newest !== undefined && this.isCancelled(newest);
  }

  /** Stops listening. */
  close(): void {
    this.unsubscribe();
  }

  private isCancelled(callId: string): boolean {
    const until = this.cancelled.get(callId);
    return until !== undefined && until > this.clock();
  }

  private heard(callId: string): void {
    const now = this.clock();
    for (const [id, until] of this.cancelled) if (until <= now) this.cancelled.delete(id);
    this.cancelled.set(callId, now + this.keepMs + REPLY_GRACE_MS);
    const invocationId = [...this.running].find(([, calls]) => calls.has(callId))?.[0];
    if (invocationId === undefined) return;
    worldMetrics().callCancels.inc({ replica: this.replica });
    log.info({ invocationId }, 'call cancelled by its client');
  }
}
