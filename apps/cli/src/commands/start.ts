import { openPostgres, serviceLogger } from '@world/runtime';
import { uniqueReplica } from './util.js';
import { bootstrapDemo } from '../system/demo.js';
import { startDistributedInProcess, startEmbedded, type System } from '../system/embedded.js';
import { worldPaths } from '../system/paths.js';

/** `world start` options (env gives the defaults). */
export interface StartOptions {
  bind: string;
  publicReads: boolean;
}

/**
 * `world start`: the whole of World in this process. Embedded (PGlite under $WORLD_HOME, an
 * in-process bus) unless NATS_URL and DATABASE_URL are both set, then the same services on NATS
 * and PostgreSQL. Creates the `demo` episode and its session, prints how to connect, runs until
 * SIGINT/SIGTERM.
 */
export async function startCommand(
  options: StartOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<System> {
  const paths = worldPaths(env);
  const callDeadlineMs =
    env.WORLD_CALL_DEADLINE_MS !== undefined ? Number(env.WORLD_CALL_DEADLINE_MS) : undefined;
  const distributed = Boolean(env.NATS_URL) && Boolean(env.DATABASE_URL);
  const system = distributed
    ? await startDistributedInProcess({
        paths,
        bind: options.bind,
        publicReads: options.publicReads,
        callDeadlineMs,
        natsUrl: env.NATS_URL!,
        prefix: env.WORLD_SUBJECT_PREFIX ?? 'world',
        database: await openPostgres(env.DATABASE_URL!, {
          applicationName: uniqueReplica('world-start'),
        }),
        dbPath: redactUrl(env.DATABASE_URL!),
      })
    : await startEmbedded({
        paths,
        bind: options.bind,
        publicReads: options.publicReads,
        callDeadlineMs,
      });
  const demo = await bootstrapDemo(system.rpc, paths);
  const mcp = `${system.url}/mcp`;
  const lines = [
    `World is running (${distributed ? 'distributed: NATS + PostgreSQL' : `embedded: PGlite at ${paths.pgdata}, no NATS`})`,
    `  MCP endpoint:  ${mcp}`,
    `  episode:       ${demo.episodeId} (worktree ${demo.worktree})`,
    `  session token: ${demo.sessionFile}${demo.reused ? ' (kept from the last start)' : ' (new)'}`,
    `  operator:      ${paths.operatorTokenFile}`,
    '',
    'Connect Claude Code:',
    `  claude mcp add --transport http world ${mcp} --header "Authorization: Bearer $(cat ${demo.sessionFile})"`,
    'Try it with the MCP Inspector CLI:',
    `  npx @modelcontextprotocol/inspector --cli ${mcp} --transport http --header "Authorization: Bearer $(cat ${demo.sessionFile})" --method tools/list`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  serviceLogger('world').info({ url: system.url, mode: system.mode }, 'ready');
  return system;
}

/** A connection string without its password, for display. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'postgres';
  }
}
