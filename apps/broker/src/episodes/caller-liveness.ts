import { Inject, Injectable } from '@nestjs/common';
import { CallCancelledError, CallerGoneError } from '@world/contracts';
import { RPC, askCaller, serviceLogger, type RpcClient } from '@world/runtime';

const log = serviceLogger('broker');

/**
 * Whether the planner instance behind a waiting lease request is still there (DESIGN.md §2
 * "Per-episode serialization"): it is asked on its own liveness subject (callerSubject), which
 * only that instance subscribes to for as long as its connection lives. An answer naming it
 * within PLANNER_LIVENESS_MS is alive; "no responders" (a SIGKILLed process has no subscriber),
 * a timeout (a hung one) or any other failure to answer is gone — unlike the gateway's holder
 * watch, which takes only "no responders" (askCaller): a waiter has written nothing yet, so
 * dropping a slow one costs a refused call, while keeping a hung one stalls the episode's queue.
 * Embedded mode's planner answers on the in-process bus, so it is always alive there.
 */
@Injectable()
export class CallerLiveness {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /**
   * @param caller the planner instance's caller id (the lease request's `caller`)
   * @param episodeId the episode whose lease it waits for (for the error and the log)
   * @param invocationId the waiting effect's invocation: the planner answers `cancelled` when
   *   its client cancelled it meanwhile (README "Cancellation")
   * @throws CallerGoneError when the instance does not answer, CallCancelledError when it says
   *   the invocation was cancelled (nothing was written either way)
   */
  async ensureAlive(caller: string, episodeId: string, invocationId?: string): Promise<void> {
    const answer = await askCaller(this.rpc, caller, invocationId);
    if (!answer.alive) {
      log.warn(
        { episodeId, caller, err: answer.cause },
        'the planner of a call waiting for the lease did not answer; the call is dropped',
      );
      throw new CallerGoneError(episodeId, caller);
    }
    const { reply } = answer;
    if (reply.cancelled === true && invocationId !== undefined) {
      log.info({ episodeId, invocationId }, 'a call waiting for the lease was cancelled; dropped');
      throw new CallCancelledError(invocationId);
    }
  }
}
