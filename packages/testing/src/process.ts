import { spawn, type ChildProcess } from 'node:child_process';
import { watchLines, type ExitStatus } from './line-waiter.js';

/** How long waitForLine waits by default (ms): a service's start-up on a loaded machine. */
const READY_TIMEOUT_MS = 30_000;

/** A child process started by a test, with its output captured line by line. */
export interface TestProcess {
  child: ChildProcess;
  pid: number;
  lines: string[];
  /** Resolves with the first line matching `pattern` (or rejects after `timeoutMs` or on exit). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited, with its code and signal. */
  exited: Promise<ExitStatus>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts `node <script> …args` with the given environment.
 * Kills refuse pids ≤ 1, this process and its parent (world-internals §12 incident 14).
 */
export function startNode(script: string, args: string[], env: NodeJS.ProcessEnv): TestProcess {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${script}`);
  const pid = child.pid;
  const watch = watchLines(child, `${script} (pid ${pid})`);
  return {
    child,
    pid,
    lines: watch.lines,
    exited: watch.exited,
    waitForLine: (pattern, timeoutMs = READY_TIMEOUT_MS) => watch.waitForLine(pattern, timeoutMs),
    kill(signal = 'SIGTERM') {
      safeKill(pid, signal);
    },
  };
}

/** Sends a signal to one pid, refusing pids that would hit this test run itself. */
export function safeKill(pid: number, signal: NodeJS.Signals): void {
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || pid === process.ppid) {
    throw new Error(`refusing to signal pid ${pid}`);
  }
  try {
    process.kill(pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
