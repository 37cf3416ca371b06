/**
 * Counts the work a server has accepted and not yet answered, so a shutdown can stop taking new
 * work and then wait for what is in flight (world-spec §7.2: "drain in-flight requests ≤ 10 s").
 */
export class InFlight {
  private count = 0;
  private readonly waiters = new Set<() => void>();

  /** How many units of work are in flight. */
  get size(): number {
    return this.count;
  }

  /** One unit of work was accepted. */
  enter(): void {
    this.count++;
  }

  /** One unit of work was answered (or abandoned). */
  leave(): void {
    this.count = Math.max(0, this.count - 1);
    if (this.count === 0) for (const wake of [...this.waiters]) wake();
  }

  /** Counts a promise as in flight until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.enter();
    work.then(
      () => this.leave(),
      () => this.leave(),
    );
    return work;
  }

  /**
   * Resolves once nothing is in flight, or when `timeoutMs` ends first.
   * @returns true when idle, false when the time ran out with work still in flight
   */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }
}
