import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { toWireObject } from '@world/canonical';
import {
  SEMANTIC_IDS,
  deadlineTable,
  ServiceUnavailableError,
  TransportTimeoutError,
} from '@world/contracts';
import {
  answerReplicaSurvey,
  connectRpc,
  serviceLogger,
  startMicroservice,
  type RunningService,
  type TransportConfig,
  type RpcClient,
} from '@world/runtime';
import { CallCancellations } from './invoke/call-cancellations.js';
import { newCallerId, startLiveness } from './liveness/liveness.js';
import { PlannerModule } from './planner.module.js';
import { ToolRegistry } from './registry/tool-registry.js';

/** Options of one planner replica. */
export interface PlannerOptions {
  transport: TransportConfig;
  replica?: string;
  /** the invocation deadline every phase budget derives from (ms, default 20 000) */
  callDeadlineMs?: number;
}

/** Random bytes (hex) that keep default replica names of one host and process apart. */
const REPLICA_SUFFIX_BYTES = 3;

const log = serviceLogger('planner');

/**
 * Starts a planner replica: builds the tool registry, publishes it to the ledger's registry head
 * `world/transition-registry/v1` (retrying until the ledger answers), then serves
 * `planner.*` in the `planner` queue group, and its own liveness subject (startLiveness).
 * close() stops taking calls, lets the calls in flight finish, stops answering its liveness,
 * then disconnects, which flushes the lease releases those calls published
 * (packages/runtime/README.md "Shutdown").
 */
export async function startPlanner(
  options: PlannerOptions,
): Promise<RunningService & { registry: ToolRegistry }> {
  const replica =
    options.replica ??
    `planner-${hostname()}-${process.pid}-${randomBytes(REPLICA_SUFFIX_BYTES).toString('hex')}`;
  const startedAtMs = Date.now();
  const registry = new ToolRegistry();
  const rpc = await connectRpc(options.transport, replica);
  const deadlines = deadlineTable(options.callDeadlineMs);
  const cancellations = new CallCancellations(rpc, deadlines.totalMs, replica);
  // Answering before the first call: a call waiting for a lease is granted it only while its
  // planner answers (DESIGN.md §2), and not once its client cancelled it.
  const liveness = await startLiveness(newCallerId(), options.transport, {
    replica,
    rpc,
    cancelled: (invocationId) => cancellations.cancelledInvocation(invocationId),
  });
  // The caller id is what the journal names as a keyed claim's holder: this line ties it to a
  // process for the operator.
  log.info({ replica, caller: liveness.caller }, 'answering planner.alive');
  const app = await startMicroservice(
    'planner',
    PlannerModule.register({
      rpc,
      registry,
      cancellations,
      settings: {
        replica,
        caller: liveness.caller,
        deadlines,
      },
    }),
    options.transport,
    // One NATS connection for the planner's requests and its replies (closed by rpc.close()).
    { replica, rpc },
  );
  const publishing = new AbortController();
  void publishRegistry(rpc, registry, publishing.signal);
  const checks = options.transport.kind === 'nats' ? { nats: () => rpc.ping() } : {};
  // Every replica answers the replica survey (the workbench's Overview), outside the queue group.
  const stopAnswering = answerReplicaSurvey(rpc, {
    service: 'planner',
    replica,
    checks,
    startedAtMs,
  });
  let closed: Promise<void> | undefined;
  return {
    service: 'planner',
    replica,
    registry,
    checks,
    close() {
      closed ??= (async () => {
        stopAnswering();
        publishing.abort();
        await app.close();
        await liveness.close();
        cancellations.close();
        await rpc.close();
      })();
      return closed;
    },
  };
}

/** Publishes the registry head; the ledger may start after the planner in distributed mode. */
async function publishRegistry(
  rpc: RpcClient,
  registry: ToolRegistry,
  stop: AbortSignal,
): Promise<void> {
  for (let attempt = 0; !stop.aborted; attempt++) {
    try {
      await rpc.request(
        'ledger.registry.publish',
        {
          name: SEMANTIC_IDS.transitionRegistry,
          object: toWireObject(registry.registryObject),
          objects: registry.archivedObjects().map(toWireObject),
        },
        { timeoutMs: 5_000 },
      );
      return;
    } catch (err) {
      if (stop.aborted) return;
      if (
        !(err instanceof ServiceUnavailableError || err instanceof TransportTimeoutError) ||
        attempt > 600
      ) {
        log.error({ err }, 'could not publish the transition registry');
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * (attempt + 1))));
    }
  }
}
