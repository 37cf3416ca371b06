import { isAbsolute, join, resolve } from 'node:path';

/** Where a World installation keeps its state on this machine (world-spec §7.5). */
export interface WorldPaths {
  /** WORLD_HOME, default ./.world (absolute) */
  home: string;
  /** WORLD_WORKSPACE_ROOT, default $WORLD_HOME/worktrees */
  workspaceRoot: string;
  /** the embedded database's data directory */
  pgdata: string;
  /** the operator credential file (mode 0600) */
  operatorTokenFile: string;
  /** the demo episode's session file (mode 0600) */
  demoSessionFile: string;
  /** the log's checkpoint signing key (WORLD_LOG_KEY_FILE, default $WORLD_HOME/log.key, mode 0600) */
  logKeyFile: string;
}

/** Resolves the paths from the environment. */
export function worldPaths(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): WorldPaths {
  const home = resolve(cwd, env.WORLD_HOME ?? '.world');
  const workspaceRoot =
    env.WORLD_WORKSPACE_ROOT !== undefined && env.WORLD_WORKSPACE_ROOT !== ''
      ? isAbsolute(env.WORLD_WORKSPACE_ROOT)
        ? env.WORLD_WORKSPACE_ROOT
        : resolve(cwd, env.WORLD_WORKSPACE_ROOT)
      : join(home, 'worktrees');
  return {
    home,
    workspaceRoot,
    pgdata: join(home, 'pgdata'),
    operatorTokenFile: env.WORLD_OPERATOR_TOKEN_FILE ?? join(home, 'operator.token'),
    demoSessionFile: join(home, 'demo.session'),
    logKeyFile:
      env.WORLD_LOG_KEY_FILE !== undefined && env.WORLD_LOG_KEY_FILE !== ''
        ? resolve(cwd, env.WORLD_LOG_KEY_FILE)
        : join(home, 'log.key'),
  };
}
