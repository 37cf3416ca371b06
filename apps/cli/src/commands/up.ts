import { NatsRpcClient } from '@world/runtime';
import { CliError } from './util.js';
import { bootstrapDemo } from '../system/demo.js';
import { worldPaths } from '../system/paths.js';
import { parseReplicas, spawnServices, type ServiceProcess } from '../system/up.js';

/** How long `world up` waits for every process to log "ready". */
export const UP_READY_TIMEOUT_MS = 60_000;

/**
 * `world up [--replicas …]`: starts each service as its own process against NATS_URL and
 * DATABASE_URL (distributed mode, DESIGN.md §5), bootstraps the demo episode, prints how to
 * connect, and stops every process on SIGINT/SIGTERM.
 * @throws CliError exit 2 when NATS_URL or DATABASE_URL is missing or --replicas is malformed
 */
export async function upCommand(options: { replicas?: string; quiet?: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<ServiceProcess[]> {
  if (!env.NATS_URL || !env.DATABASE_URL) {
    throw new CliError('world up: NATS_URL and DATABASE_URL must be set (distributed mode); `world start` runs embedded', 2);
  }
  const replicas = parseReplicas(options.replicas);
  const [host, portText] = (env.WORLD_BIND ?? '127.0.0.1:7644').split(/:(?=[^:]*$)/);
  const port = Number(portText);
  if (!host || !Number.isInteger(port) || port <= 0) throw new CliError(`WORLD_BIND "${env.WORLD_BIND}" must be host:port`, 2);
  const paths = worldPaths(env);
  const childEnv = { ...env, WORLD_HOME: paths.home, WORLD_WORKSPACE_ROOT: paths.workspaceRoot, WORLD_OPERATOR_TOKEN_FILE: paths.operatorTokenFile };
  const processes = spawnServices(replicas, childEnv, { host, port }, (replica, line) => {
    if (!options.quiet) process.stderr.write(`[${replica}] ${line}\n`);
  });
  const stop = () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const timer = setTimeout(stop, UP_READY_TIMEOUT_MS);
  try {
    await Promise.all(processes.map((p) => p.ready));
  } catch (err) {
    stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const rpc = await NatsRpcClient.connect(env.NATS_URL, env.WORLD_SUBJECT_PREFIX ?? 'world', 'world-up');
  try {
    const demo = await bootstrapDemo(rpc, paths);
    const gateways = processes.filter((p) => p.service === 'gateway').map((p) => `http://${host}:${p.port}/mcp`);
    process.stdout.write(
      [
        `World is running (distributed: ${processes.length} processes on NATS + PostgreSQL)`,
        ...gateways.map((g) => `  MCP endpoint:  ${g}`),
        `  episode:       ${demo.episodeId} (worktree ${demo.worktree})`,
        `  session token: ${demo.sessionFile}`,
        `  operator:      ${paths.operatorTokenFile}`,
        '',
        'Connect Claude Code:',
        `  claude mcp add --transport http world ${gateways[0]} --header "Authorization: Bearer $(cat ${demo.sessionFile})"`,
        '',
      ].join('\n'),
    );
  } finally {
    await rpc.close();
  }
  return processes;
}
