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
  /**
   * Admits one operation of an effect: the capability must be granted and its budget not
   * spent (ailang.md §3: capability first, then budget).
   * @throws AilRuntimeError `effect 'X' requires capability, but none provided` /
   *   `effect 'X' budget exhausted: limit=N, used=N`
   */
  charge(effect: string): void;
}

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
