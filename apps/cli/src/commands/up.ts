import { underHomeLock, type HomeLockOptions } from '../system/home-lock.js';
import { loadStartEnv } from './start.js';
import { worldPaths } from '../system/paths.js';
import { superviseReplicas } from '../system/supervise.js';
import { parseReplicas } from '../system/up-args.js';
import { startUp, type UpSystem } from '../system/up.js';
import { workbenchBanner } from './workbench.js';

/**
 * `world up [--replicas …]`: starts each service as its own process against NATS_URL and
 * DATABASE_URL (distributed mode, DESIGN.md §5; startUp), prints the gateways, each process's
 * health port (/livez, /readyz, /metrics) and how to connect, and stops every process on
 * SIGINT/SIGTERM. A process that exits on its own is reported on stderr and restarted after a
 * back-off (superviseReplicas), unless `restart` is false (`--no-restart`). Holds the exclusive
 * lock on WORLD_HOME (underHomeLock) while it runs, like `world start`: the services are
 * started in process groups of their own, so a terminal's Ctrl-C reaches only this process,
 * which stops them in order (gateways first) and then releases the lock.
 * @throws ConfigError (exit 2) for a malformed variable the services read (loadStartEnv);
 *   CliError exit 2 when NATS_URL or DATABASE_URL is missing, --replicas is malformed or
 *   another process holds WORLD_HOME; CliError when a process does not become ready
 */
export async function upCommand(
  options: { replicas?: string; quiet?: boolean; restart?: boolean; lock?: HomeLockOptions },
  env: NodeJS.ProcessEnv = process.env,
): Promise<UpSystem> {
  const onLine = (replica: string, line: string) => {
    if (!options.quiet) process.stderr.write(`[${replica}] ${line}\n`);
  };
  // The services check these too, but one line here beats four services exiting 2 at start.
  loadStartEnv('world up', env);
  parseReplicas(options.replicas);
  const system = await underHomeLock(worldPaths(env).home, options.lock, 'stop', () =>
    startUp({ replicas: options.replicas, onLine }, env),
  );
  let stopping = false;
  const supervisor =
    options.restart === false
      ? undefined
      : superviseReplicas(system, { log: (line) => process.stderr.write(`${line}\n`) });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    supervisor?.stop();
    void system.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (supervisor === undefined) {
    for (const p of system.processes) {
      void p.exited.then(({ code, signal }) => {
        if (!stopping)
          process.stderr.write(`world up: ${p.replica} exited (code ${code}, signal ${signal})\n`);
      });
    }
  }
  const session = system.demo.sessionFile;
  // Health servers listen on WORLD_HEALTH_HOST (startUp defaults it to the gateways' host).
  const listen = system.env.WORLD_HEALTH_HOST ?? '127.0.0.1';
  const healthHost =
    listen === '0.0.0.0' ? '127.0.0.1' : listen.includes(':') ? `[${listen}]` : listen;
  const mcp = system.gateways.map((g) => `${g}/mcp`);
  const health = system.processes.map(
    (p) =>
      `    ${p.replica.padEnd(12)} pid ${String(p.child.pid).padEnd(8)}${p.healthPort === undefined ? '' : ` health http://${healthHost}:${p.healthPort}/readyz`}`,
  );
  process.stdout.write(
    [
      `World is running (distributed: ${system.processes.length} processes on NATS + PostgreSQL)`,
      ...mcp.map((url) => `  MCP endpoint:  ${url}`),
      ...system.gateways.map((g) => `  metrics:       ${g}/metrics`),
      `  episode:       ${system.demo.episodeId} (worktree ${system.demo.worktree})`,
      `  session token: ${session}`,
      `  operator:      ${system.operatorTokenFile ?? 'WORLD_OPERATOR_TOKEN'}`,
      '  processes:',
      ...health,
      '',
      'Connect Claude Code:',
      `  claude mcp add --transport http world ${mcp[0]} --header "Authorization: Bearer $(cat ${session})"`,
      ...workbenchBanner(system.gateways[0]!, worldPaths(env).home),
      '',
    ].join('\n'),
  );
  return system;
}
