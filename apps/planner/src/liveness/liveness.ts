import { randomBytes } from 'node:crypto';
import { Controller, Module, type DynamicModule } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { PLANNER_CALLER_BYTES, callerSubject, type ReplyOf } from '@world/contracts';
import { startMicroservice, type RpcClient, type TransportConfig } from '@world/runtime';

/** A new caller id for one planner instance: PLANNER_CALLER_BYTES random bytes, hex. */
export function newCallerId(): string {
  return randomBytes(PLANNER_CALLER_BYTES).toString('hex');
}

/** The module answering one caller id's liveness subject (a controller per instance). */
function livenessModule(caller: string): DynamicModule {
  @Controller()
  class LivenessController {
    @MessagePattern(callerSubject(caller))
    alive(): ReplyOf<'planner.alive'> {
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
 * taken for a dead one.
 * @param caller this instance's caller id (newCallerId)
 */
export async function startLiveness(
  caller: string,
  transport: TransportConfig,
  options: { replica: string; rpc: RpcClient },
): Promise<Liveness> {
  const app = await startMicroservice('planner', livenessModule(caller), transport, options);
  return { caller, close: () => app.close() };
}
