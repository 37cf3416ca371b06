/**
 * How long a lease this broker's call took is still held, by the expiry it wrote itself: tx1
 * sets `expires_at` to the `now` it sent plus the ttl, and each renewal to its own `now` plus
 * the ttl (EpisodesRepository), all on this process's clock. A broker paused or starved past
 * that moment (SIGSTOP, a stalled event loop, a statement that waited on a lock longer than the
 * ttl) may find another call holding the episode and its newer effect applied; running the
 * handler then would apply a stale effect over it, which the file system cannot fence
 * (DESIGN.md §2 "Per-episode serialization"; world-internals §5.2: an effect runs under the
 * fence that admitted it, or not at all).
 */
export class LeaseTerm {
  /**
   * @param until the expiry tx1 wrote (epoch ms, this process's clock)
   */
  constructor(private until: number) {}

  /** Takes a renewal's expiry (epoch ms); an older one never shortens the term. */
  extend(until: number): void {
    if (until > this.until) this.until = until;
  }

  /** Whether the lease is still held at `now` (epoch ms; default: the clock now). */
  held(now: number = Date.now()): boolean {
    return now < this.until;
  }
}
