/**
 * World distributed (DESIGN.md §5): a NATS server started with infra/nats/nats.conf on a free
 * port, a fresh PostgreSQL database on the machine's server, and the four services as their own
 * processes from their built entries (apps/<service>/dist/main.js), as `world up` runs them.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { NatsRpcClient } from '@world/runtime';
import type { BenchProcess } from '../proc.js';
import { OperatorApi } from './operator.js';
import { repoPath } from './paths.js';
import { SERVICES, startStage, type ServiceName } from './stage.js';
import type { Target } from './target.js';

/** A distributed World plus what the harness uses behind the gateway. */
export interface DistributedTarget extends Target {
  /** the operator credential the gateway was started with */
  operatorToken: string;
  kind: 'distributed';
  natsUrl: string;
  prefix: string;
  databaseUrl: string;
  /** a client on the services' subjects (fill the log, pump an episode) */
  rpc: NatsRpcClient;
  /** the services by name */
  services: Record<ServiceName, BenchProcess>;
  nats: BenchProcess;
}

/**
 * Starts NATS, creates the database and starts the four services.
 * @param nodeArgs extra node flags for the service processes (profiling)
 * @throws when a process never logs ready (everything started is stopped first)
 */
export async function startDistributedTarget(
  root: string,
  fixtureDir: string,
  runTag: string,
  nodeArgs: string[] = [],
): Promise<DistributedTarget> {
  const stage = await startStage(root, 'nats', 'bench', runTag);
  const { nats, natsUrl, dbName, databaseUrl } = stage;
  try {
    const prefix = `bench-${randomBytes(4).toString('hex')}`;
    const operatorToken = randomBytes(32).toString('hex');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NATS_URL: natsUrl,
      DATABASE_URL: databaseUrl,
      WORLD_SUBJECT_PREFIX: prefix,
      WORLD_HOME: join(root, 'distributed-home'),
      WORLD_WORKSPACE_ROOT: join(root, 'distributed-home', 'worktrees'),
      WORLD_OPERATOR_TOKEN: operatorToken,
      WORLD_DB_PATH: dbName,
    };
    const { services, gatewayUrl: baseUrl } = await stage.startRoles(
      (service) => repoPath(`apps/${service}/dist/main.js`),
      (service) => ({
        ...env,
        WORLD_REPLICA: `${service}-1`,
        ...(service === 'gateway' && { WORLD_BIND: '127.0.0.1:0' }),
      }),
      nodeArgs,
    );
    const operator = new OperatorApi(baseUrl, operatorToken);
    const rpc = await NatsRpcClient.connect(natsUrl, prefix, 'bench-harness');
    return {
      kind: 'distributed',
      mcpUrl: `${baseUrl}/mcp`,
      baseUrl,
      processes: [...SERVICES.map((s) => services[s]), nats],
      natsUrl,
      prefix,
      databaseUrl,
      rpc,
      services,
      nats,
      watched: () => stage.watched(),
      clients: (n, label, options) =>
        operator.clients(n, label, fixtureDir, runTag, options?.sharedEpisode ?? false),
      headIndex: () => operator.headIndex(),
      operatorToken,
      async close() {
        await rpc.close();
        // The edge first so nothing new arrives, the ledger last, then NATS and the database.
        await stage.close();
      },
    };
  } catch (err) {
    await stage.close();
    throw err;
  }
}
