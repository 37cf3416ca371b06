import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  SHUTDOWN_DRAIN_MS,
  UP_READY_TIMEOUT_MS,
  UP_STOP_MARGIN_MS,
  formatHostPort,
  type HostPort,
} from '@world/contracts';
import { loadOperatorCredential, OPERATOR_TOKEN_FILE_NAME } from '@world/gateway';
import { NatsRpcClient } from '@world/runtime';
import { CliError } from '../commands/util.js';
import { bootstrapDemo, type DemoSession } from './demo.js';
import { worldPaths, type WorldPaths } from './paths.js';
import {
  parseReplicas,
  parseUpBind,
  SERVICES,
  type Replicas,
  type ServiceName,
} from './up-args.js';

/** The exit code of a process that refused its configuration (runMain, DESIGN.md §5). */
const CONFIG_EXIT_CODE = 2;

/** How long `stop()` waits for a SIGTERM'd process before it sends SIGKILL. */
const UP_STOP_GRACE_MS = SHUTDOWN_DRAIN_MS + UP_STOP_MARGIN_MS;

/**
 * The built entry point of a service: `<package root>/dist/main.js` of `@world/<service>`, the
 * root found by walking up from the module the package resolves to (its exports map does not
 * expose package.json; under jest the package resolves to its sources, under node to dist/).
 * @throws Error when the package cannot be resolved
 * @internal exported for broker-recovery.e2e-spec.ts, ledger-stalled.e2e-spec.ts, nats-max-payload.e2e-spec.ts, scale.e2e-spec.ts, up-world.ts, up.spec.ts
 */
export function serviceEntry(service: ServiceName): string {
  const name = `@world/${service}`;
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  while (!isPackageRoot(dir, name)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package root of ${name}`);
    dir = parent;
  }
  return join(dir, 'dist', 'main.js');
}

function isPackageRoot(dir: string, name: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name ===
      name
    );
  } catch {
    return false;
  }
}

/** One started service process. */
export interface ServiceProcess {
  service: ServiceName;
  /** `<service>-<n>`, also its WORLD_REPLICA */
  replica: string;
  child: ChildProcess;
  /** the gateway's port, for gateways */
  port?: number;
  /**
   * The port of its /livez, /readyz and /metrics server, as logged in its "ready" line
   * (`healthPort`); undefined until ready, or when the service logs none.
   */
  healthPort?: number;
  /** resolves when it logged "ready"; rejects when it exits first */
  ready: Promise<void>;
  /** resolves when it has exited */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Where one process listens and how its lines are reported. */
interface SpawnOptions {
  /** the gateway's host:port (gateways only) */
  bind?: HostPort;
  /** WORLD_HEALTH_PORT of this process (0 = any free port) */
  healthPort?: number;
  onLine: (replica: string, line: string) => void;
}

/**
 * The environment of one replica: WORLD_REPLICA, the gateway's WORLD_BIND, WORLD_HEALTH_PORT,
 * and DATABASE_URL with `application_name=world-<replica>` (unless the URL names one), so
 * `pg_stat_activity` shows which replica holds which connection (node-postgres lets the URL's
 * parameters override the pool's application name).
 * @internal exported for up.spec.ts, ledger-stalled.e2e-spec.ts
 */
export function replicaEnv(
  replica: string,
  env: NodeJS.ProcessEnv,
  options: { bind?: HostPort; healthPort?: number },
): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...env, WORLD_REPLICA: replica };
  if (options.bind !== undefined) childEnv.WORLD_BIND = formatHostPort(options.bind);
  if (options.healthPort !== undefined) childEnv.WORLD_HEALTH_PORT = String(options.healthPort);
  if (env.DATABASE_URL) {
    try {
      const url = new URL(env.DATABASE_URL);
      if (!url.searchParams.has('application_name')) {
        url.searchParams.set('application_name', `world-${replica}`);
        childEnv.DATABASE_URL = url.toString();
      }
    } catch {
      // A malformed URL is passed on unchanged: the service reports it (exit 2).
    }
  }
  return childEnv;
}

/**
 * The preload every service process gets (parent-watch.ts, built into apps/cli/dist: src/ and
 * dist/ sit at the same depth, so this resolves from either).
 * @internal exported for parent-watch.spec.ts
 */
export const PARENT_WATCH_URL = new URL('../../dist/system/parent-watch.js', import.meta.url).href;

/**
 * Starts one process of a service (`node --import parent-watch.js apps/<service>/dist/main.js`)
 * as replica `replica`, detached in a process group of its own; it ends itself when `world up`
 * dies (parent-watch.ts).
 * Its JSON log lines (stdout and stderr) go to `onLine`; it is ready when it logs msg "ready",
 * whose `healthPort` (when present) is recorded. One that exits 2 before it is ready refused its
 * configuration: `ready` rejects with CliError exit 2 carrying its last stderr line.
 */
function spawnService(
  service: ServiceName,
  replica: string,
  env: NodeJS.ProcessEnv,
  options: SpawnOptions,
): ServiceProcess {
  const childEnv = replicaEnv(replica, env, options);
  const child = spawn(process.execPath, ['--import', PARENT_WATCH_URL, serviceEntry(service)], {
    env: childEnv,
    // Its own process group (a terminal's Ctrl-C reaches only `world up`, which stops the
    // services in order); stdin is the pipe parent-watch.ts watches to end it if we die.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const proc: ServiceProcess = {
    service,
    replica,
    child,
    port: options.bind?.port,
    ready: Promise.resolve(),
    exited,
  };
  proc.ready = new Promise<void>((resolve, reject) => {
    let partial: Record<'out' | 'err', string> = { out: '', err: '' };
    /** the last line on stderr: a refused configuration's one line (exit 2) */
    let lastError = '';
    const watch = (stream: 'out' | 'err') => (buf: Buffer) => {
      const lines = (partial[stream] + buf.toString('utf8')).split('\n');
      partial = { ...partial, [stream]: lines.pop() ?? '' };
      for (const line of lines) {
        if (line === '') continue;
        if (stream === 'err') lastError = line;
        options.onLine(replica, line);
        if (line.includes('"msg":"ready"')) {
          const port = readyHealthPort(line);
          if (port !== undefined) proc.healthPort = port;
          resolve();
        }
      }
    };
    child.stdout!.on('data', watch('out'));
    child.stderr!.on('data', watch('err'));
    void exited.then(({ code, signal }) =>
      reject(
        code === CONFIG_EXIT_CODE
          ? // A service refused its configuration (runMain): `world up` refuses with its line.
            new CliError(`${replica} refused to start: ${lastError}`, CONFIG_EXIT_CODE)
          : new CliError(`${replica} exited (code ${code}, signal ${signal}) before it was ready`),
      ),
    );
  });
  proc.ready.catch(() => undefined);
  return proc;
}

/** The `healthPort` of a "ready" line, when it carries one. */
function readyHealthPort(line: string): number | undefined {
  try {
    const value = (JSON.parse(line) as { healthPort?: unknown }).healthPort;
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts `replicas` processes of each service with the given environment, in SERVICES order.
 * Gateway replica i (0-based) listens on the base port + i (`--replicas gateway=2` with
 * WORLD_BIND 127.0.0.1:7644 → 7644 and 7645). Replicas are named `<service>-<n>` (n from 1).
 * With `healthPorts`, every process serves /livez, /readyz and /metrics on a port of its own:
 * consecutive from `healthPorts.base`, or any free port when the base is 0.
 */
function spawnServices(
  replicas: Replicas,
  env: NodeJS.ProcessEnv,
  bind: HostPort,
  onLine: (replica: string, line: string) => void,
  options: { healthPorts?: { base: number } } = {},
): ServiceProcess[] {
  const processes: ServiceProcess[] = [];
  for (const service of SERVICES) {
    for (let i = 0; i < replicas[service]; i++) {
      const base = options.healthPorts?.base;
      const healthPort = base === undefined ? undefined : base === 0 ? 0 : base + processes.length;
      processes.push(
        spawnService(service, `${service}-${i + 1}`, env, {
          bind: service === 'gateway' ? { host: bind.host, port: bind.port + i } : undefined,
          healthPort,
          onLine,
        }),
      );
    }
  }
  return processes;
}

/**
 * Stops processes the way an operator would: SIGTERM (each drains its in-flight calls,
 * world-spec §7.2), gateways first so no new call arrives, then planners, brokers and ledgers;
 * a process still running after `graceMs` gets SIGKILL. Resolves when all have exited.
 */
async function stopServices(
  processes: ServiceProcess[],
  graceMs = UP_STOP_GRACE_MS,
): Promise<void> {
  for (const service of [...SERVICES].reverse()) {
    const group = processes.filter(
      (p) => p.service === service && p.child.exitCode === null && p.child.signalCode === null,
    );
    for (const p of group) p.child.kill('SIGTERM');
    await Promise.all(
      group.map(async (p) => {
        let timer: NodeJS.Timeout | undefined;
        const killed = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            p.child.kill('SIGKILL');
            resolve();
          }, graceMs);
        });
        await Promise.race([p.exited, killed]);
        await p.exited;
        clearTimeout(timer);
      }),
    );
  }
}

/** A distributed World started as separate processes by `world up`. */
export interface UpSystem {
  processes: ServiceProcess[];
  /** the gateways' base URLs (http://host:port), one per gateway replica */
  gateways: string[];
  paths: WorldPaths;
  /** the operator credential's file every gateway reads (absent when WORLD_OPERATOR_TOKEN is set) */
  operatorTokenFile?: string;
  demo: DemoSession;
  /** the environment every process was started with (before its per-replica settings) */
  env: NodeJS.ProcessEnv;
  /**
   * Starts a new process for a replica that exited (same service, replica name, gateway port and
   * environment; a free health port), replaces it in `processes` and returns it (not yet ready).
   * @throws CliError when the replica is unknown or its process still runs
   */
  respawn(replica: string): ServiceProcess;
  /** stops every process (stopServices) */
  stop(): Promise<void>;
}

/** Options of startUp. */
export interface UpOptions {
  /** `--replicas` text, e.g. gateway=2,planner=2,broker=3,ledger=2 */
  replicas?: string;
  /** every log line of every process */
  onLine?: (replica: string, line: string) => void;
  /** how long to wait for every "ready" line (default UP_READY_TIMEOUT_MS) */
  readyTimeoutMs?: number;
}

/**
 * `world up` without the printing (DESIGN.md §5): checks NATS_URL and DATABASE_URL, makes sure
 * the operator credential exists before any gateway starts (so every gateway replica reads the
 * same one instead of racing to create it), starts every replica (spawnServices with a health
 * server each: WORLD_HEALTH_PORT consecutive from its value, or free ports when it is unset or
 * 0), waits until all are ready, and bootstraps the demo episode and its session.
 * @throws CliError exit 2 when NATS_URL or DATABASE_URL is missing or --replicas / WORLD_BIND is
 *   malformed; CliError when a process exits before it is ready or readiness times out (every
 *   started process is stopped first)
 */
export async function startUp(
  options: UpOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<UpSystem> {
  if (!env.NATS_URL || !env.DATABASE_URL) {
    throw new CliError(
      'world up: NATS_URL and DATABASE_URL must be set (distributed mode); `world start` runs embedded',
      2,
    );
  }
  const replicas = parseReplicas(options.replicas);
  const bind = parseUpBind(env.WORLD_BIND);
  const healthBase =
    env.WORLD_HEALTH_PORT === undefined || env.WORLD_HEALTH_PORT === ''
      ? 0
      : Number(env.WORLD_HEALTH_PORT);
  if (!Number.isInteger(healthBase) || healthBase < 0)
    throw new CliError(`WORLD_HEALTH_PORT "${env.WORLD_HEALTH_PORT}" must be a port number`, 2);
  const paths = worldPaths(env);
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    WORLD_HOME: paths.home,
    WORLD_WORKSPACE_ROOT: paths.workspaceRoot,
    // Health servers listen where the gateways do (loopback unless WORLD_BIND says otherwise).
    WORLD_HEALTH_HOST: env.WORLD_HEALTH_HOST || bind.host,
  };
  let operatorTokenFile: string | undefined;
  if (!env.WORLD_OPERATOR_TOKEN) {
    // The default file is created here when absent (mode 0600); a named file must exist.
    const explicit = env.WORLD_OPERATOR_TOKEN_FILE;
    const loaded = await loadOperatorCredential(
      explicit === undefined || explicit === join(paths.home, OPERATOR_TOKEN_FILE_NAME)
        ? { worldHome: paths.home }
        : { file: explicit, worldHome: paths.home },
    ).catch((err: unknown) => {
      throw new CliError((err as Error).message, 2);
    });
    operatorTokenFile = loaded.file;
    childEnv.WORLD_OPERATOR_TOKEN_FILE = operatorTokenFile;
  }
  const onLine = options.onLine ?? (() => undefined);
  const processes = spawnServices(replicas, childEnv, bind, onLine, {
    healthPorts: { base: healthBase },
  });
  const stop = () => stopServices(processes);
  const respawn = (replica: string): ServiceProcess => {
    const at = processes.findIndex((p) => p.replica === replica);
    const old = processes[at];
    if (old === undefined) throw new CliError(`world up: no replica named ${replica}`);
    if (old.child.exitCode === null && old.child.signalCode === null)
      throw new CliError(`world up: ${replica} is still running`);
    const fresh = spawnService(old.service, replica, childEnv, {
      bind: old.port === undefined ? undefined : { host: bind.host, port: old.port },
      healthPort: healthBase === 0 ? 0 : old.healthPort,
      onLine,
    });
    processes[at] = fresh;
    return fresh;
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CliError(
            `world up: not every process was ready within ${options.readyTimeoutMs ?? UP_READY_TIMEOUT_MS} ms`,
          ),
        ),
      options.readyTimeoutMs ?? UP_READY_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([Promise.all(processes.map((p) => p.ready)), timeout]);
    const rpc = await NatsRpcClient.connect(
      env.NATS_URL,
      env.WORLD_SUBJECT_PREFIX ?? 'world',
      'world-up',
    );
    try {
      const demo = await bootstrapDemo(rpc, paths);
      const gateways = processes
        .filter((p) => p.service === 'gateway')
        .map((p) => `http://${formatHostPort({ host: bind.host, port: p.port! })}`);
      return { processes, gateways, paths, operatorTokenFile, demo, env: childEnv, respawn, stop };
    } finally {
      await rpc.close();
    }
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
