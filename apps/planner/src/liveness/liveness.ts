import { randomBytes } from 'node:crypto';
import { Controller, Module, type DynamicModule } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  PLANNER_CALLER_BYTES,
  PlannerAliveRequest,
  callerSubject,
  type ReplyOf,
} from '@world/contracts';
import { startMicroservice, type RpcClient, type TransportConfig } from '@world/runtime';

/** A new caller id for one planner instance: PLANNER_CALLER_BYTES random bytes, hex. */
export function newCallerId(): string {
  return randomBytes(PLANNER_CALLER_BYTES).toString('hex');
}

/** Whether a running invocation's client cancelled it (CallCancellations.cancelledInvocation). */
export type CancelledInvocation = (invocationId: string) => boolean;

/**
 * The module answering one caller id's liveness subject (a controller per instance): its caller
 * id, and `cancelled: true` when the asked invocation's client cancelled it meanwhile.
 */
function livenessModule(caller: string, cancelled: CancelledInvocation): DynamicModule {
  @Controller()
  class LivenessController {
    @MessagePattern(callerSubject(caller))
    alive(@Payload() data: unknown): ReplyOf<'planner.alive'> {
      const parsed = PlannerAliveRequest.safeParse(data ?? {});
      const invocationId = parsed.success ? parsed.data.invocationId : undefined;
      if (invocationId !== undefined && cancelled(invocationId)) return { caller, cancelled: true };
      return { caller };
    }
  }
  @Module({})
  class LivenessModule {}
  return { module: LivenessModule, controllers: [LivenessController] };
}

/** A planner instance's liveness server: its caller id, and the stop of its subject. */
export interface Liveness {
  caller: string;
  close(): Promise<void>;
}

/**
 * Answers this planner instance's liveness subject, `planner.alive.<caller>` (contracts
 * callerSubject), with its caller id, so a broker holding a call of this instance that waits for
 * an episode lease grants it only while the instance is there (DESIGN.md §2 "Per-episode
 * serialization"; a SIGKILLed process has no subscriber left). It is a microservice of its own on
 * the planner's transport (over NATS, on the planner's connection): the planner closes it last,
 * after its calls drained, so a call still waiting for a lease during a graceful drain is not
 * taken for a dead one. Asked about an invocation whose client cancelled it, it says so, and the
 * broker drops that waiting call without writing anything (README "Cancellation").
 * @param caller this instance's caller id (newCallerId)
 * @param cancelled whether a running invocation was cancelled by its client
 */
export async function startLiveness(
  caller: string,
  transport: TransportConfig,
  options: { replica: string; rpc: RpcClient; cancelled: CancelledInvocation },
): Promise<Liveness> {
  const app = await startMicroservice(
    'planner',
    livenessModule(caller, options.cancelled),
    transport,
    { replica: options.replica, rpc: options.rpc },
  );
  return { caller, close: () => app.close() };
}
