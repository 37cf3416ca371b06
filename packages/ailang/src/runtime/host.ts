import type { Sandbox } from './sandbox.js';
import { AilRuntimeError } from './values.js';

/**
 * What a running program may touch: its output streams, the supplied stdin, the granted
 * capabilities with their operation budgets, the sandbox, its argv and a minimal environment
 * (ailang.md §3 "Runtime grant"; world-spec §3.5).
 */
export interface RuntimeHost {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The next stdin line without its line ending, or null at end of input. */
  readLine(): string | null;
  readonly sandbox: Sandbox | null;
  readonly args: readonly string[];
  readonly env: ReadonlyMap<string, string>;
  /** where std/net may connect, and its bounds */
  readonly net: NetPolicy;
  /**
   * Blocks the run for `ms` milliseconds (std/clock `sleep`); nothing for ms <= 0.
   * @throws AilRuntimeError for a pause longer than the run's whole time limit
   */
  sleep(ms: bigint): void;
  /**
   * Admits one operation of an effect: the capability must be granted and its budget not
   * spent (ailang.md §3: capability first, then budget).
   * @throws AilRuntimeError `effect 'X' requires capability, but none provided` /
   *   `effect 'X' budget exhausted: limit=N, used=N`
   */
  charge(effect: string): void;
}

/** std/net's reach in one run: the policy's endpoints and the request bounds. */
export interface NetPolicy {
  /** `IP:PORT` literals (policy `net_allow`) */
  allow: readonly string[];
  /** plain http allowed (policy `net_allow_http`) */
  allowHttp: boolean;
  /** one exchange's limit, ms */
  timeoutMs: number;
  /** the largest response body, bytes */
  maxResponseBytes: number;
}

/** No network: the policy of a run without Net. */
const NO_NET: NetPolicy = { allow: [], allowHttp: false, timeoutMs: 0, maxResponseBytes: 0 };

/** Options of a StandardHost. */
export interface HostOptions {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: string;
  caps: ReadonlySet<string>;
  /** per-effect operation ceilings; absent = unlimited */
  budgets: ReadonlyMap<string, number>;
  sandbox: Sandbox | null;
  args: readonly string[];
  env: ReadonlyMap<string, string>;
  /** the run's time limit (policy timeout_ms); absent: no limit */
  timeLimitMs?: number;
  net?: NetPolicy;
}

/** The host every run uses; deterministic given its options. */
export class StandardHost implements RuntimeHost {
  private stdinPos = 0;
  private readonly used = new Map<string, number>();

  constructor(private readonly o: HostOptions) {}

  get sandbox(): Sandbox | null {
    return this.o.sandbox;
  }
  get args(): readonly string[] {
    return this.o.args;
  }
  get env(): ReadonlyMap<string, string> {
    return this.o.env;
  }
  get net(): NetPolicy {
    return this.o.net ?? NO_NET;
  }

  sleep(ms: bigint): void {
    if (ms <= 0n) return;
    const limit = this.o.timeLimitMs;
    if (limit !== undefined && ms > BigInt(limit)) {
      throw new AilRuntimeError(
        `sleep: ${ms} ms is longer than the run's time limit (timeout_ms ${limit})`,
      );
    }
    // Atomics.wait blocks this thread only; the supervisor's terminate() interrupts it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms));
  }

  stdout(text: string): void {
    this.o.stdout(text);
  }

  stderr(text: string): void {
    this.o.stderr(text);
  }

  readLine(): string | null {
    const input = this.o.stdin;
    if (this.stdinPos >= input.length) return null;
    const nl = input.indexOf('\n', this.stdinPos);
    const end = nl < 0 ? input.length : nl;
    let line = input.slice(this.stdinPos, end);
    this.stdinPos = nl < 0 ? input.length : nl + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    return line;
  }

  charge(effect: string): void {
    if (!this.o.caps.has(effect)) {
      throw new AilRuntimeError(`effect '${effect}' requires capability, but none provided`);
    }
    const limit = this.o.budgets.get(effect);
    if (limit === undefined) return;
    const used = this.used.get(effect) ?? 0;
    if (used >= limit)
      throw new AilRuntimeError(
        `effect '${effect}' budget exhausted: limit=${limit}, used=${used}`,
      );
    this.used.set(effect, used + 1);
  }
}
