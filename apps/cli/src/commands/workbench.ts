/**
 * `world workbench [--session <file|token>] [--open]` (README "The workbench"): trades the operator
 * credential (or a session's) for a one-time login ticket at the gateway (POST /workbench/tickets)
 * and prints the login URL; `--open` also opens it with the desktop's opener (xdg-open / open). The
 * URL is good for one exchange within 60 s; the credential itself never appears in it.
 */
import { spawn } from 'node:child_process';
import { gatewayUrl, readerToken } from './client/credentials.js';
import { GatewayClient } from './client/http.js';
import { warner, type Output } from './operator.js';

/** Options of `workbench`. */
export interface WorkbenchOptions {
  session?: string;
  open?: boolean;
}

/**
 * Runs `world workbench`.
 * @throws CliError for an unreachable gateway or a refused credential (GatewayClient's errors)
 */
export async function workbench(
  options: WorkbenchOptions,
  env: NodeJS.ProcessEnv,
  io: Output,
): Promise<void> {
  const base = gatewayUrl(env);
  const client = new GatewayClient(base, await readerToken(options.session, env, warner(io)));
  const { path } = await client.json<{ path: string }>('POST', '/workbench/tickets');
  const url = `${base}${path}`;
  io.out(url);
  if (options.open) {
    const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
    spawn(opener, [url], { stdio: 'ignore', detached: true })
      .on('error', (err) =>
        io.err(`workbench: could not run ${opener}: ${err.message}; open the URL above`),
      )
      .unref();
  }
}

/**
 * The banner lines of `world start` and `world up` that say how to open the workbench: the
 * command, with the gateway's URL and the World home it reads the operator credential from.
 * @param url the gateway's base URL (http://host:port)
 * @param home WORLD_HOME of the running World
 */
export function workbenchBanner(url: string, home: string): string[] {
  return [
    'Open the workbench (what World recorded, live, in a browser) with a one-time login URL:',
    `  WORLD_URL=${url} WORLD_HOME=${home} pnpm world workbench --open`,
  ];
}
