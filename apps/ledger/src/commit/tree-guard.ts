/**
 * The ledger's refusal to append once its log no longer extends the tree it signed (a log key
 * never signs two inconsistent checkpoints: C2SP tlog-checkpoint). Every append computes its
 * tree from the head's stored compact range, so the ledger itself only ever extends it; what can
 * break
 * the law is a write from outside (a rewritten suffix, a changed tree row). The checkpoint signer
 * checks, before it signs a size, that the stored tree at that size extends the last signed
 * checkpoint (a consistency proof from the stored nodes); when it does not, it trips this guard
 * and every later append of this replica is refused, with the reason, until an operator looks.
 */
import { ServiceUnavailableError } from '@world/contracts';

/** The Nest token of the replica's TreeGuard. */
export const TREE_GUARD = Symbol('TREE_GUARD');

/** One replica's latch: open until tripped, then every append is refused. */
export class TreeGuard {
  private reason: string | null = null;

  /** Refuses every later append, for `reason` (the first reason is kept). */
  trip(reason: string): void {
    this.reason ??= reason;
  }

  /** Why appends are refused, or null while they are not. */
  refusal(): string | null {
    return this.reason;
  }

  /**
   * @throws ServiceUnavailableError `appends are refused: <reason>` once tripped
   */
  check(): void {
    if (this.reason !== null)
      throw new ServiceUnavailableError(`appends are refused: ${this.reason}`);
  }
}
