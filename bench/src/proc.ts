/**
 * The processes a run starts (baseline, NATS, World's services) and their memory: each is
 * spawned with its output kept in a short ring, is ready when a line matches, and is stopped by
 * its own pid (SIGTERM, then SIGKILL after a grace).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { watchLines } from '@world/testing';
import { READY_TIMEOUT_MS, RSS_SAMPLE_MS, STOP_GRACE_MS } from './config.js';

/** Lines of a process's output kept for the error message when it fails. */
const TAIL_LINES = 40;
const KIB = 1024;

/** A process started by the harness. */
export interface BenchProcess {
  /** its label in the report (`gateway`, `world-embedded`, `baseline`, `nats`) */
  name: string;
  pid: number;
  child: ChildProcess;
  /** the last lines of its output */
  tail: string[];
  /** resolves with the first output line matching `pattern` */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after STOP_GRACE_MS; resolves when it has exited */
  stop(): Promise<void>;
}

/**
 * Starts a command with the given environment (not merged with this process's).
 * @throws Error when the command cannot be spawned
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): BenchProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  const pid = child.pid;
  const watch = watchLines(child, `${name} (pid ${pid})`, TAIL_LINES);
  return {
    name,
    pid,
    child,
    tail: watch.lines,
    waitFor: (pattern, timeoutMs = READY_TIMEOUT_MS) => watch.waitForLine(pattern, timeoutMs),
    async stop() {
      if (watch.exit !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (watch.exit === undefined) child.kill('SIGKILL');
      }, STOP_GRACE_MS);
      await watch.exited;
      clearTimeout(timer);
    },
  };
}

/** Resident memory of a process, from /proc/<pid>/status, in MB (VmRSS now, VmHWM its peak). */
interface Memory {
  rssMb: number;
  hwmMb: number;
}

/** Reads VmRSS and VmHWM of a live process; null when it is gone. */
function readMemory(pid: number): Memory | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / KIB, hwmMb: kb('VmHWM') / KIB };
}

/**
 * Samples the RSS of a set of processes every RSS_SAMPLE_MS and keeps, per process, the peak
 * of the current window (reset by `window()`) and the kernel's high-water mark.
 */
export class RssSampler {
  private readonly peaks = new Map<string, number>();
  private readonly hwm = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private processes: Array<{ name: string; pid: number }>) {}

  /** Adds processes to the sampled set. */
  track(processes: Array<{ name: string; pid: number }>): void {
    this.processes = [...this.processes, ...processes];
  }

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), RSS_SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    this.sample();
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** The peak RSS (MB) of each process since the last call, then starts a new window. */
  window(): Record<string, number> {
    this.sample();
    const out = Object.fromEntries(this.peaks);
    this.peaks.clear();
    return out;
  }

  /** The high-water mark (VmHWM, MB) of each process, as last seen. */
  highWater(): Record<string, number> {
    return Object.fromEntries(this.hwm);
  }

  private sample(): void {
    for (const p of this.processes) {
      const m = readMemory(p.pid);
      if (m === null) continue;
      this.peaks.set(p.name, Math.max(this.peaks.get(p.name) ?? 0, m.rssMb));
      this.hwm.set(p.name, Math.max(this.hwm.get(p.name) ?? 0, m.hwmMb));
    }
  }
}

/** Kernel clock ticks per second (/proc/<pid>/stat counts CPU time in them). */
const CLOCK_TICKS_PER_S = 100;
const MS_PER_S = 1000;

/** CPU time (user + system) a live process has used, ms; null when it is gone. */
function readCpuMs(pid: number): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces) start at field 3 (state).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const UTIME = 11;
  const STIME = 12;
  return ((Number(fields[UTIME]) + Number(fields[STIME])) * MS_PER_S) / CLOCK_TICKS_PER_S;
}

/** CPU time of each watched process at one moment: pid → name and ms. */
export type CpuSnapshot = Map<number, { name: string; ms: number }>;

/** Reads the CPU time of every listed process that is alive. */
export function cpuSnapshot(processes: Array<{ name: string; pid: number }>): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  for (const p of processes) {
    const ms = readCpuMs(p.pid);
    if (ms !== null) out.set(p.pid, { name: p.name, ms });
  }
  return out;
}

/**
 * CPU ms per call of each process name between two snapshots, summed over its pids. A pid that
 * appeared in between (a new PostgreSQL backend) counts whole; one that exited is lost (its
 * time since the first snapshot is not seen), so a pool that churns connections is undercounted.
 */
export function cpuPerCall(
  before: CpuSnapshot,
  after: CpuSnapshot,
  calls: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  if (calls <= 0) return out;
  for (const [pid, { name, ms }] of after) {
    out[name] = (out[name] ?? 0) + (ms - (before.get(pid)?.ms ?? 0)) / calls;
  }
  return out;
}

/**
 * Every live descendant of `pid` (children, their children, …), read from /proc/<pid>/stat
 * (field 4, the parent pid), with its command name (`comm`, field 2).
 */
export function descendants(pid: number): Array<{ pid: number; comm: string }> {
  const children = new Map<number, Array<{ pid: number; comm: string }>>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // comm is in parentheses and may hold spaces; the fields after it are space-separated.
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push({ pid: Number(name), comm: stat.slice(open + 1, close) });
    children.set(ppid, list);
  }
  const out: Array<{ pid: number; comm: string }> = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}
