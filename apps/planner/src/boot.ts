import { hostname } from 'node:os';
import { toWireObject } from '@world/canonical';
import { SEMANTIC_IDS, deadlineTable, ServiceUnavailableError, TransportTimeoutError } from '@world/contracts';
import { connectRpc, serviceLogger, startMicroservice, type RunningService, type TransportConfig, type RpcClient } from '@world/runtime';
import { PlannerModule } from './planner.module.js';
import { ToolRegistry } from './registry/tool-registry.js';

/** Options of one planner replica. */
export interface PlannerOptions {
  transport: TransportConfig;
  replica?: string;
  /** the invocation deadline every phase budget derives from (ms, default 20 000) */
  callDeadlineMs?: number;
}

const log = serviceLogger('planner');

/**
 * Starts a planner replica: builds the tool registry, publishes it to the ledger's registry head
 * `world/transition-registry/v1` (retrying until the ledger answers), then serves
 * `planner.*` in the `planner` queue group.
 */
export async function startPlanner(options: PlannerOptions): Promise<RunningService & { registry: ToolRegistry }> {
  const replica = options.replica ?? `planner-${hostname()}-${process.pid}`;
  const registry = new ToolRegistry();
  const rpc = await connectRpc(options.transport, replica);
  const app = await startMicroservice(
    'planner',
    PlannerModule.register({ rpc, registry, settings: { replica, deadlines: deadlineTable(options.callDeadlineMs) } }),
    options.transport,
  );
  void publishRegistry(rpc, registry);
  return {
    service: 'planner',
    replica,
    registry,
    async close() {
      await app.close();
      await rpc.close();
    },
  };
}

/** Publishes the registry head; the ledger may start after the planner in distributed mode. */
async function publishRegistry(rpc: RpcClient, registry: ToolRegistry): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rpc.request(
        'ledger.registry.publish',
        { name: SEMANTIC_IDS.transitionRegistry, object: toWireObject(registry.registryObject) },
        { timeoutMs: 5_000 },
      );
      return;
    } catch (err) {
      if (!(err instanceof ServiceUnavailableError || err instanceof TransportTimeoutError) || attempt > 600) {
        log.error({ err }, 'could not publish the transition registry');
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * (attempt + 1))));
    }
  }
}
