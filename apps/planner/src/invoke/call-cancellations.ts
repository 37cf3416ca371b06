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
  /** invocationId → callId of the calls this replica is running */
  private readonly running = new Map<string, string>();
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
   * Marks a call as running on this replica until the returned function is called.
   * @returns the stop of tracking (idempotent)
   */
  track(inv: Invocation): () => void {
    const callId = inv.req.callId;
    if (callId === undefined) return () => undefined;
    this.running.set(inv.invocationId, callId);
    return () => {
      if (this.running.get(inv.invocationId) === callId) this.running.delete(inv.invocationId);
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
   * call waiting for the episode lease).
   * @param invocationId an invocation this replica runs; any other is not cancelled
   */
  cancelledInvocation(invocationId: string): boolean {
    const callId = this.running.get(invocationId);
    return callId !== undefined && this.isCancelled(callId);
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
    const invocationId = [...this.running].find(([, id]) => id === callId)?.[0];
    if (invocationId === undefined) return;
    worldMetrics().callCancels.inc({ replica: this.replica });
    log.info({ invocationId }, 'call cancelled by its client');
  }
}
