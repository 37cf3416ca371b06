import { BrokerEnv } from '@world/broker';
import { z } from 'zod';
import type { HostPort } from '@world/contracts';
import { assertBindAllowed, parseBind } from '@world/gateway';
import {
  CommonEnv,
  ConfigError,
  envFlag,
  loadConfig,
  openPostgres,
  serviceLogger,
} from '@world/runtime';
import { uniqueReplica } from './util.js';
import { workbenchBanner } from './workbench.js';
import { bootstrapDemo } from '../system/demo.js';
import { startDistributedInProcess, startEmbedded, type System } from '../system/embedded.js';
import { underHomeLock, type HomeLockOptions } from '../system/home-lock.js';
import { worldPaths } from '../system/paths.js';

/** `world start` options (env gives the defaults). */
export interface StartOptions {
  bind: string;
  /** --public-reads (WORLD_PUBLIC_READS=1 turns it on too) */
  publicReads: boolean;
  /** how the WORLD_HOME lock reports its loss (tests) */
  lock?: HomeLockOptions;
}

/**
 * The MCP Inspector release the banner and the README pin: its `--cli --transport http
 * --header` works on Node 20 against `world start` (0.15.0 refuses `--header` on a URL).
 */
const INSPECTOR_VERSION = '2.12.0';

/** The name `world start` gives its configuration errors. */
const START = 'world start';

/**
 * The environment `world start` reads (DESIGN.md §5), validated before anything starts: the
 * common variables (WORLD_LOG_LEVEL among them), the gateway's flags (WORLD_PUBLIC_READS,
 * WORLD_BIND_PUBLIC) with the gateway's accepted values, and the broker's examples corpus, run
 * capabilities, Net allowances (WORLD_RUN_NET_ALLOW, WORLD_RUN_NET_ALLOW_HTTP) and AILANG_BIN.
 */
export const StartEnv = CommonEnv.omit({ WORLD_HEALTH_PORT: true, WORLD_HEALTH_HOST: true })
  .extend({
    WORLD_PUBLIC_READS: envFlag('WORLD_PUBLIC_READS'),
    WORLD_BIND_PUBLIC: envFlag('WORLD_BIND_PUBLIC'),
  })
  .extend(
    BrokerEnv.pick({
      WORLD_EXAMPLES_DIR: true,
      WORLD_RUN_ALLOW_CAPS: true,
      WORLD_RUN_NET_ALLOW: true,
      WORLD_RUN_NET_ALLOW_HTTP: true,
      AILANG_BIN: true,
    }).shape,
  );

/**
 * Validates StartEnv (an empty NATS_URL or DATABASE_URL counts as unset: the mode is chosen on
 * both being set). `world up` checks its environment with it too, so a bad value exits 2 with
 * one line before any service process starts.
 * @param command the name the error line starts with (`world start`, `world up`)
 * @throws ConfigError `<command>: invalid configuration: <VAR>: <problem>`
 */
export function loadStartEnv(command: string, env: NodeJS.ProcessEnv): z.output<typeof StartEnv> {
  return loadConfig(command, StartEnv, {
    ...env,
    NATS_URL: env.NATS_URL || undefined,
    DATABASE_URL: env.DATABASE_URL || undefined,
  });
}

/** `world start`'s validated configuration. */
interface StartConfig {
  bind: HostPort;
  bindPublic: boolean;
  publicReads: boolean;
  callDeadlineMs?: number;
  examplesDir?: string;
  runAllowCaps: string[];
  netAllow: string[];
  netAllowHttp: boolean;
}

/**
 * Validates `world start`'s options and environment before anything starts.
 * @throws ConfigError (exit 2) with one line: `world start: invalid configuration: <VAR>: …`,
 *   or the gateway's bind refusals under the `world start:` name
 * @internal exported for start.spec.ts
 */
export function startConfig(
  options: Pick<StartOptions, 'bind' | 'publicReads'>,
  env: NodeJS.ProcessEnv = process.env,
): StartConfig {
  const parsed = loadStartEnv(START, env);
  let bind: HostPort;
  try {
    bind = parseBind(options.bind);
    assertBindAllowed(bind, parsed.WORLD_BIND_PUBLIC);
  } catch (err) {
    if (err instanceof ConfigError)
      throw new ConfigError(err.message.replace(/^gateway: /, `${START}: `));
    throw err;
  }
  return {
    bind,
    bindPublic: parsed.WORLD_BIND_PUBLIC,
    publicReads: options.publicReads || parsed.WORLD_PUBLIC_READS,
    callDeadlineMs:
      env.WORLD_CALL_DEADLINE_MS !== undefined ? parsed.WORLD_CALL_DEADLINE_MS : undefined,
    examplesDir: parsed.WORLD_EXAMPLES_DIR,
    runAllowCaps: parsed.WORLD_RUN_ALLOW_CAPS,
    netAllow: parsed.WORLD_RUN_NET_ALLOW,
    netAllowHttp: parsed.WORLD_RUN_NET_ALLOW_HTTP,
  };
}

/**
 * `world start`: the whole of World in this process. Embedded (its own PostgreSQL server on
 * $WORLD_HOME/pgdata, an in-process bus) unless NATS_URL and DATABASE_URL are both set, then the same services on NATS
 * and PostgreSQL. Validates the configuration first (startConfig), then holds the exclusive lock
 * on WORLD_HOME for the process's lifetime (underHomeLock: a second World on the same home exits 2
 * naming the holder's pid), creates the `demo` episode and its session, prints how to connect,
 * runs until SIGINT/SIGTERM; the returned system's close() releases the lock.
 * @throws ConfigError (exit 2) for a bad option or variable; CliError (exit 2) when another
 *   process holds WORLD_HOME, or its pgdata holds a PGlite database, or (as root) the cluster's
 *   user cannot be set up
 */
export async function startCommand(
  options: StartOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<System> {
  const config = startConfig(options, env);
  const paths = worldPaths(env);
  return underHomeLock(paths.home, options.lock, 'close', () => startLocked(config, paths, env));
}

/** startCommand once WORLD_HOME is locked. */
async function startLocked(
  config: StartConfig,
  paths: ReturnType<typeof worldPaths>,
  env: NodeJS.ProcessEnv,
): Promise<System> {
  // What both modes start with: the edge's settings and the broker's operator gates.
  const common = {
    paths,
    bind: config.bind,
    bindPublic: config.bindPublic,
    publicReads: config.publicReads,
    callDeadlineMs: config.callDeadlineMs,
    broker: {
      examplesDir: config.examplesDir,
      runAllowCaps: config.runAllowCaps,
      netAllow: config.netAllow,
      netAllowHttp: config.netAllowHttp,
    },
  };
  const distributed = Boolean(env.NATS_URL) && Boolean(env.DATABASE_URL);
  const system = distributed
    ? await startDistributedInProcess({
        ...common,
        natsUrl: env.NATS_URL!,
        prefix: env.WORLD_SUBJECT_PREFIX ?? 'world',
        database: await openPostgres(env.DATABASE_URL!, {
          applicationName: uniqueReplica('world-start'),
        }),
        dbPath: redactUrl(env.DATABASE_URL!),
      })
    : await startEmbedded({
        ...common,
        // The embedded server's notices are log lines like the services' (JSON unless stdout is a
        // terminal), so a non-TTY start-up stays one JSON line per record before the banner.
        say: (line) => serviceLogger('world').info(line.replace(/^world: /, '')),
      });
  const demo = await bootstrapDemo(system.rpc, paths).catch(async (err: unknown) => {
    await system.close();
    throw err;
  });
  const mcp = `${system.url}/mcp`;
  const lines = [
    `World is running (${distributed ? 'distributed: NATS + PostgreSQL' : `embedded: PostgreSQL at ${paths.pgdata}, no NATS`})`,
    `  MCP endpoint:  ${mcp}`,
    `  episode:       ${demo.episodeId} (worktree ${demo.worktree})`,
    `  session token: ${demo.sessionFile}${demo.reused ? ' (kept from the last start)' : ' (new)'}`,
    `  operator:      ${paths.operatorTokenFile}`,
    '',
    'Connect Claude Code:',
    `  claude mcp add --transport http world ${mcp} --header "Authorization: Bearer $(cat ${demo.sessionFile})"`,
    'Try it with the MCP Inspector CLI:',
    `  npx -y @modelcontextprotocol/inspector@${INSPECTOR_VERSION} --cli ${mcp} --transport http --header "Authorization: Bearer $(cat ${demo.sessionFile})" --method tools/list`,
    ...workbenchBanner(system.url, paths.home),
    '',
  ];
  // The banner comes last and in one write, after every start-up line, so it is what a person
  // starting World sees last.
  serviceLogger('world').info({ url: system.url, mode: system.mode }, 'ready');
  process.stdout.write(lines.join('\n'));
  return system;
}

/** A connection string without its password, for display. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'postgres';
  }
}
