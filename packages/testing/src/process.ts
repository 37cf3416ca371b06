import { spawn, type ChildProcess } from 'node:child_process';

/** A child process started by a test, with its output captured line by line. */
export interface TestProcess {
  child: ChildProcess;
  pid: number;
  lines: string[];
  /** Resolves with the first line matching `pattern` (or rejects after `timeoutMs` or on exit). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves when the process has exited, with its code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (l: string) => void }> = [];
  const onData = (buf: Buffer) => {
    for (const line of buf.toString('utf8').split('\n')) {
      if (line === '') continue;
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    pid,
    lines,
    exited,
    waitForLine(pattern, timeoutMs = 30_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no line matching ${pattern} within ${timeoutMs} ms; output:\n${lines.join('\n')}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(
            new Error(
              `process exited (code ${code}, signal ${signal}) before a line matching ${pattern}; output:\n${lines.join('\n')}`,
            ),
          );
        });
      });
    },
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
