import type { HeadPosition } from './chain.js';

/**
 * The head one ledger replica last saw: read under the head lock, read at start, or left by a
 * commit of its own. Only a hint for the one-statement commit (commit-strategies.ts
 * ONE_STATEMENT), never trusted: that statement moves the head only if it still stands exactly
 * here, so a stale value costs a fallback to the commit transaction, never a wrong entry.
 */
export class LastHead {
  private head: HeadPosition | null = null;
  /** lone commits still to send through the transaction after repeated misses */
  private skipping = 0;
  /** one-statement commits in a row that wrote nothing */
  private misses = 0;

  /** The last head seen, or null before any was. */
  get(): HeadPosition | null {
    return this.head;
  }

  /**
   * Remembers a committed head. An older entry index never replaces a newer one: the log only
   * grows, and the answers of concurrent transactions may arrive out of order.
   */
  see(head: HeadPosition): void {
    if (this.head !== null && head.entryIndex < this.head.entryIndex) return;
    this.head = head;
  }

  /**
   * Whether the next lone commit should try the one-statement path: not for FAST_PATH_BACKOFF
   * commits after two misses in a row. With several ledger replicas the head usually moved since
   * this one's last commit, and each miss costs a round trip on top of the transaction's four;
   * backing off bounds that cost, while one replica alone (a miss only after a REST commit or a
   * resend, then a hit) never backs off.
   */
  worthTrying(): boolean {
    if (this.skipping === 0) return true;
    this.skipping -= 1;
    return false;
  }

  /** Records a one-statement commit that wrote nothing (see worthTrying). */
  missed(): void {
    this.misses += 1;
    if (this.misses >= 2) {
      this.skipping = FAST_PATH_BACKOFF;
      this.misses = 1;
    }
  }

  /** Records a one-statement commit that was written. */
  landed(): void {
    this.misses = 0;
  }
}

/**
 * Lone commits sent through the transaction after two one-statement misses in a row.
 * @internal exported for commit-strategies.spec.ts, last-head.spec.ts
 */
export const FAST_PATH_BACKOFF = 8;
