/**
 * Runs the built `world` command (apps/cli/dist/main.js) as a real process, the way a user
 * does, against a World booted in the test process. Children are spawned asynchronously: the
 * system answering them runs on this process's event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built entry point; `pnpm exec turbo run build --filter=@world/cli...` makes it. */
export const CLI_ENTRY = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Fails fast, with the fix, when the CLI has not been built. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_ENTRY)) {
    throw new Error(
      `${CLI_ENTRY} is missing: build it first with \`pnpm exec turbo run build --filter=@world/cli...\``,
    );
  }
}

/** How a run ended. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Only what the command should see: no session, database or NATS settings leak in from the test. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
}

/**
 * Runs `world <args…>` to its end.
 * @param options.stdin bytes written to its standard input (closed after)
 */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  options: { stdin?: string | Buffer } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  child.stdin!.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** A long-running `world` process (e.g. `log tail --follow`), its stdout split into lines. */
export interface RunningCli {
  child: ChildProcess;
  lines: string[];
  stderr(): string;
  /** resolves once stdout holds at least `n` lines */
  untilLines(n: number, timeoutMs?: number): Promise<string[]>;
  /** sends SIGTERM and resolves with how it ended */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `world <args…>` and keeps it running. */
export function startCli(args: string[], env: Record<string, string | undefined>): RunningCli {
  const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  child.stdout!.on('data', (b: Buffer) => {
    const parts = (partial + b.toString('utf8')).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    for (const w of [...waiters]) if (lines.length >= w.n) w.resolve();
  });
  child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    lines,
    stderr: () => err,
    untilLines(n, timeoutMs = 30_000) {
      if (lines.length >= n) return Promise.resolve([...lines]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `expected ${n} lines within ${timeoutMs} ms; got:\n${lines.join('\n')}\nstderr:\n${err}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve([...lines]);
          },
        });
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return ended;
    },
  };
}
