/**
 * What follows every entry a replica appended, whichever way it was written (tool or REST,
 * one statement or a transaction): the head metric, a checkpoint of the new head, one `entry
 * committed` log line (with the invocation id of the call it commits), then the
 * `ledger.committed` event (DESIGN.md §2: announced after the transaction committed).
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { RequestOf } from '@world/contracts';
import { REPLICA, RPC, serviceLogger, worldMetrics, type RpcClient } from '@world/runtime';
import { CHECKPOINT_SIGNER, LEDGER_SERVICE } from '../constants.js';

const log = serviceLogger(LEDGER_SERVICE);

/** The highest entry index each replica of this process committed or read at start. */
const headSeen = new Map<string, number>();

/**
 * Records a head this replica saw (after a commit, or read at start) in
 * `world_ledger_head_index{replica}`; an older index never lowers it (commits of one replica
 * may answer out of order).
 */
export function observeHead(replica: string, entryIndex: number): void {
  if (entryIndex <= (headSeen.get(replica) ?? -1)) return;
  headSeen.set(replica, entryIndex);
  worldMetrics().ledgerHeadIndex.set({ replica }, entryIndex);
}

/** One replica's announcements of its committed entries. */
@Injectable()
export class CommittedEvents {
  /**
   * @param events the client `ledger.committed` is emitted on
   * @param replica this replica's name: `world_ledger_head_index{replica}` follows its commits
   *   when given
   * @param checkpoints told of every commit: it signs a checkpoint of the new head
   *   (tlog/checkpoint-signer.ts)
   */
  constructor(
    @Inject(RPC) private readonly events: Pick<RpcClient, 'emit'>,
    @Optional() @Inject(REPLICA) private readonly replica?: string,
    @Optional() @Inject(CHECKPOINT_SIGNER) private readonly checkpoints?: { committed(): void },
  ) {}

  /**
   * Announces a committed entry (committedEvent of its write). At most once: a lost event never
   * undoes a commit, so a failure to publish is logged, not thrown.
   */
  committed(event: RequestOf<'ledger.committed'>): void {
    if (this.replica !== undefined) observeHead(this.replica, event.entryIndex);
    this.checkpoints?.committed();
    log.info(
      { entryIndex: event.entryIndex, entryHash: event.entryHash, writtenBy: event.writtenBy },
      'entry committed',
    );
    try {
      this.events.emit('ledger.committed', event);
    } catch (err) {
      log.warn({ err, entryIndex: event.entryIndex }, 'ledger.committed was not published');
    }
  }
}
