import { accessSync, constants, statSync } from 'node:fs';
import { z } from 'zod';
import { CommonEnv, envFlag } from '@world/runtime';

/**
 * Why `path` is not what a variable needs (an executable file, or a directory), or undefined
 * when it is: checked at start so a wrong path exits 2 with one line instead of failing later
 * with a raw ENOENT.
 * @internal exported for config.spec.ts
 */
export function pathProblem(path: string, want: 'executable' | 'directory'): string | undefined {
  try {
    const stat = statSync(path);
    if (want === 'directory') return stat.isDirectory() ? undefined : 'is not a directory';
    if (!stat.isFile()) return 'is not a file';
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'does not exist';
    if (code === 'EACCES') return want === 'executable' ? 'is not executable' : 'is not readable';
    return (err as Error).message;
  }
}

/** A path variable that must name an existing executable file or directory. */
function existingPath(name: string, want: 'executable' | 'directory') {
  const what = want === 'executable' ? 'an executable file' : 'a directory';
  return z
    .string()
    .min(1, `${name} must name ${what}`)
    .superRefine((path, ctx) => {
      const problem = pathProblem(path, want);
      if (problem !== undefined)
        ctx.addIssue({ code: 'custom', message: `${name} must name ${what}: ${path} ${problem}` });
    });
}

/**
 * The broker process's environment (DESIGN.md §5): NATS and PostgreSQL are required in the
 * distributed mode; WORLD_HOME (default ./.world) holds World's own state and the policies;
 * WORLD_WORKSPACE_ROOT (default $WORLD_HOME/worktrees) holds the episode worktrees.
 */
export const BrokerEnv = CommonEnv.extend({
  NATS_URL: z.string().url('NATS_URL must be a URL such as nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().url('DATABASE_URL must be a URL such as postgres://user@host/db'),
  WORLD_HOME: z.string().min(1, 'WORLD_HOME must be a directory path').default('.world'),
  WORLD_WORKSPACE_ROOT: z
    .string()
    .min(1, 'WORLD_WORKSPACE_ROOT must be a directory path')
    .optional(),
  WORLD_REPLICA: z.string().min(1).optional(),
  /** the examples corpus examples-search reads (world-spec §3.7); must lie outside the workspace root */
  WORLD_EXAMPLES_DIR: existingPath('WORLD_EXAMPLES_DIR', 'directory').optional(),
  /** ailang-run caps beyond IO and FS the operator enables: a comma list of Clock, Declassify, Env, Net */
  WORLD_RUN_ALLOW_CAPS: z
    .string()
    .regex(
      /^$|^(Clock|Declassify|Env|Net)(,(Clock|Declassify|Env|Net))*$/,
      'WORLD_RUN_ALLOW_CAPS must be a comma list of Clock, Declassify, Env, Net',
    )
    .default('')
    .transform((v) => (v === '' ? [] : v.split(','))),
  /** IP:PORT literals a Net run may reach: a comma list such as 127.0.0.1:8080 */
  WORLD_RUN_NET_ALLOW: z
    .string()
    .regex(
      /^$|^\d{1,3}(\.\d{1,3}){3}:\d{1,5}(,\d{1,3}(\.\d{1,3}){3}:\d{1,5})*$/,
      'WORLD_RUN_NET_ALLOW must be a comma list of IP:PORT literals',
    )
    .default('')
    .transform((v) => (v === '' ? [] : v.split(','))),
  /**
   * plain http to the WORLD_RUN_NET_ALLOW endpoints (`--run-net-allow-http`, world-spec §7.2):
   * `1`/`true` on; unset, empty, `0`/`false` off (a Net run then reaches them over https only)
   */
  WORLD_RUN_NET_ALLOW_HTTP: envFlag('WORLD_RUN_NET_ALLOW_HTTP'),
  /** how often (ms) a serving broker looks for orphaned intents (default ORPHAN_SWEEP_MS) */
  WORLD_ORPHAN_SWEEP_MS: z.coerce
    .number()
    .int('WORLD_ORPHAN_SWEEP_MS must be a whole number of milliseconds')
    .positive('WORLD_ORPHAN_SWEEP_MS must be positive')
    .optional(),
  /** a real ailang binary to use instead of the embedded toolchain (DESIGN.md §7.8) */
  AILANG_BIN: existingPath('AILANG_BIN', 'executable').optional(),
});
export type BrokerEnv = z.output<typeof BrokerEnv>;
