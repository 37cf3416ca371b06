import type { HeadPosition } from './chain.js';

/**
 * The head one ledger replica last saw: read under the head lock, read at start, or left by a
 * commit of its own. Only a hint for the one-statement commit (commit-fast.ts), never trusted:
 * that statement moves the head only if it still stands exactly here, so a stale value costs a
 * fallback to the commit transaction, never a wrong entry.
 */
export class LastHead {
  private head: HeadPosition | null = null;

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
}
