import { spawn } from 'node:child_process';
import { HANDLER_PIPE_GRACE_MS } from '@world/contracts';
import { ToolProcessError } from '../errors.js';

/**
 * Runs one child process the way a tool handler must (world-internals §8.1–§8.2, incidents 13–15):
 * in its own process group (`detached`), the whole group SIGKILLed on timeout, on output
 * overflow and after the leader exits (a grandchild holding a pipe cannot stall the handler),
 * each stream capped, pipes given a bounded grace to close, stdin written then closed.
 */

/** What a finished child produced. */
export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  overflowed: boolean;
}

/** How to run a child. */
export interface ProcessOptions {
  cwd: string;
  env: Record<string, string>;
  stdin: string;
  timeoutMs: number;
  /** cap per stream, in bytes */
  maxBytes: number;
}

/**
 * Kills a process group, refusing pids that would hit more than the group: ≤ 1 (kill(-1)
 * would signal every process of the user, incident 14) and this process itself.
 */
function killGroup(pid: number | undefined): void {
  if (
    pid === undefined ||
    !Number.isInteger(pid) ||
    pid <= 1 ||
    pid === process.pid ||
    pid === process.ppid
  )
    return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/**
 * Runs `bin args…` to completion.
 * @throws ToolProcessError when the binary cannot be started
 */
export function runProcess(
  bin: string,
  args: readonly string[],
  o: ProcessOptions,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: o.cwd,
      env: o.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let overflowed = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    let graceTimer: NodeJS.Timeout | null = null;

    const finish = (): void => {
      if (settled || exit === null) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        overflowed,
      });
    };
    const collect = (into: Buffer[], chunk: Buffer, which: 'out' | 'err'): void => {
      const used = which === 'out' ? outBytes : errBytes;
      if (used + chunk.length > o.maxBytes) {
        into.push(chunk.subarray(0, o.maxBytes - used));
        if (which === 'out') outBytes = o.maxBytes;
        else errBytes = o.maxBytes;
        if (!overflowed) {
          overflowed = true;
          killGroup(child.pid);
        }
        return;
      }
      if (which === 'out') outBytes += chunk.length;
      else errBytes += chunk.length;
      into.push(chunk);
    };

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, o.timeoutMs);

    child.on('error', (e) => {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        reject(new ToolProcessError(`cannot run ${bin}: ${e.message}`));
      }
    });
    child.stdout.on('data', (c: Buffer) => collect(out, c, 'out'));
    child.stderr.on('data', (c: Buffer) => collect(err, c, 'err'));
    child.stdin.on('error', () => {
      // The child may exit without reading its stdin (EPIPE); its exit status tells the story.
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // Reap the group: nothing the tool started may outlive it or hold its pipes.
      killGroup(child.pid);
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, HANDLER_PIPE_GRACE_MS);
    });
    child.on('close', () => finish());
    child.stdin.end(o.stdin);
  });
}
