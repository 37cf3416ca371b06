import { CallCancelledError, REPLY_GRACE_MS } from '@world/contracts';
import { InProcessBus, connectRpc, type RpcClient } from '@world/runtime';
import { CallCancellations } from './call-cancellations.js';
import type { Invocation } from './invocation.js';

const CALL = '0b8f3a52-6f5e-4b7a-9d0c-1a2b3c4d5e6f';
const OTHER = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const KEEP_MS = 20_000;

function invocation(invocationId: string, callId?: string): Invocation {
  return { invocationId, req: { ...(callId !== undefined && { callId }) } } as Invocation;
}

/** The planner's side of MCP cancellation (README "Cancellation"), on the in-process bus. */
describe('CallCancellations', () => {
  let rpc: RpcClient;
  let now: number;
  let cancellations: CallCancellations;

  beforeEach(async () => {
    rpc = await connectRpc({ kind: 'inproc', bus: new InProcessBus() }, 'test');
    now = 1_000_000;
    cancellations = new CallCancellations(rpc, KEEP_MS, 'test', () => now);
  });

  afterEach(async () => {
    cancellations.close();
    await rpc.close();
  });

  const heard = async (callId: string) => {
    rpc.emit('planner.call.cancelled', { callId });
    await new Promise((resolve) => setImmediate(resolve));
  };

  it('stops a tracked call whose callId was cancelled, and answers the broker for it', async () => {
    const inv = invocation('mcp:ep:t1', CALL);
    const untrack = cancellations.track(inv);
    expect(() => cancellations.stopIfCancelled(inv)).not.toThrow();
    expect(cancellations.cancelledInvocation('mcp:ep:t1')).toBe(false);
    await heard(CALL);
    expect(() => cancellations.stopIfCancelled(inv)).toThrow(new CallCancelledError('mcp:ep:t1'));
    expect(cancellations.cancelledInvocation('mcp:ep:t1')).toBe(true);
    untrack();
    // The broker only learns of calls this replica runs.
    expect(cancellations.cancelledInvocation('mcp:ep:t1')).toBe(false);
  });

  it('keeps a cancellation heard before its call arrives for the deadline plus grace', async () => {
    await heard(CALL);
    const inv = invocation('mcp:ep:t2', CALL);
    expect(() => cancellations.stopIfCancelled(inv)).toThrow(CallCancelledError);
    now += KEEP_MS + REPLY_GRACE_MS;
    expect(() => cancellations.stopIfCancelled(inv)).not.toThrow();
  });

  it('never stops a call without a callId or with another one', async () => {
    await heard(OTHER);
    expect(() => cancellations.stopIfCancelled(invocation('a2a:ep:t3'))).not.toThrow();
    const inv = invocation('mcp:ep:t4', CALL);
    cancellations.track(inv);
    expect(() => cancellations.stopIfCancelled(inv)).not.toThrow();
    expect(cancellations.cancelledInvocation('mcp:ep:t4')).toBe(false);
  });

  it('keeps answering for a call while another call of its invocation id comes and goes', async () => {
    // The call holding the claim, then a resend of its task id (same invocation id) beside it.
    const first = invocation('mcp:ep:t5', CALL);
    const untrackFirst = cancellations.track(first);
    const untrackResend = cancellations.track(invocation('mcp:ep:t5', OTHER));
    untrackResend();
    await heard(CALL);
    expect(cancellations.cancelledInvocation('mcp:ep:t5')).toBe(true);
    // The cancelled call ending its claim, and a resend taking the claim over before it is
    // untracked: the broker's question is about the newest, which nobody cancelled.
    const untrackNext = cancellations.track(invocation('mcp:ep:t5', OTHER));
    expect(cancellations.cancelledInvocation('mcp:ep:t5')).toBe(false);
    untrackFirst();
    expect(cancellations.cancelledInvocation('mcp:ep:t5')).toBe(false);
    untrackNext();
    expect(cancellations.cancelledInvocation('mcp:ep:t5')).toBe(false);
  });
});
