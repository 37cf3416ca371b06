import { startUp, type UpSystem } from '../system/up.js';

/**
 * `world up [--replicas …]`: starts each service as its own process against NATS_URL and
 * DATABASE_URL (distributed mode, DESIGN.md §5; startUp), prints the gateways, each process's
 * health port (/livez, /readyz, /metrics) and how to connect, and stops every process on
 * SIGINT/SIGTERM. A process that exits on its own is reported on stderr.
 * @throws CliError exit 2 when NATS_URL or DATABASE_URL is missing or --replicas is malformed;
 *   CliError when a process does not become ready
 */
export async function upCommand(
  options: { replicas?: string; quiet?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<UpSystem> {
  const onLine = (replica: string, line: string) => {
    if (!options.quiet) process.stderr.write(`[${replica}] ${line}\n`);
  };
  const system = await startUp({ replicas: options.replicas, onLine }, env);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void system.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  for (const p of system.processes) {
    void p.exited.then(({ code, signal }) => {
      if (!stopping)
        process.stderr.write(`world up: ${p.replica} exited (code ${code}, signal ${signal})\n`);
    });
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
      '',
    ].join('\n'),
  );
  return system;
}
