/**
 * `ledger.commit`: commits one coordinator tool call as the next log entry (DESIGN.md §2,
 * §7.1–7.2; world-spec §2.11–2.15).
 */
import { Injectable } from '@nestjs/common';
import type { ReplyOf } from '@world/contracts';
import { committedEvent, type ToolCommitRequest } from './chain.js';
import { CommitQueue } from './commit-queue.js';
import {
  OWN_TRANSACTION,
  chooseStrategy,
  type CommitStrategy,
  type Outcome,
} from './commit-strategies.js';
import { CommitRepository } from './commit.repository.js';
import { CommittedEvents } from './committed-events.js';
import { prepareCommit, type PreparedCommit } from './tool-commit.js';

/** The use case of `ledger.commit`, one per replica (its queue batches the replica's commits). */
@Injectable()
export class CommitInvocation {
  private readonly queue = new CommitQueue((batch, answer) => this.commitBatch(batch, answer));

  constructor(
    private readonly repository: CommitRepository,
    private readonly events: CommittedEvents,
  ) {}

  /**
   * Appends a tool call's entry: binds the invocation's journal row (a re-sent commit answers
   * its first result with replayed:true and writes nothing; a claim from
   * `ledger.invocation.begin` is bound only while it is this commit's live claim), assigns
   * entryIndex = head + 1 and prevEntryHash = head entry hash under the head lock, writes
   * objects, entry, world, membership, head, tree and journal outcome; then emits
   * `ledger.committed`. Concurrent commits of this replica are batched (CommitQueue) and each
   * batch written the way chooseStrategy picks; each commit still answers exactly as it would
   * alone.
   * @param request a parsed `ledger.commit` request
   * @returns the entry's index and hash, the previous hash, the new world ref and revision
   * @throws BadRequestError for a malformed invocation id, an object whose payload does not hash
   *   to its hash (naming objects[i]), or a transitionRef/stateRoot neither carried nor stored
   * @throws DuplicateInvocationError when the id already committed different content
   * @throws ClaimGivenUpError when the id's claim is not this commit's live claim (ended, lapsed
   *   or reclaimed): nothing is written
   */
  async execute(request: ToolCommitRequest): Promise<ReplyOf<'ledger.commit'>> {
    return this.queue.submit(prepareCommit(request));
  }

  /**
   * Commits a batch with `strategy` — by default the one chooseStrategy picks — and, when it
   * declines, each commit in its own transaction; announces every entry written and answers
   * each commit as soon as its outcome is known.
   * @param answer told of each commit's outcome (index into `batch`)
   * @returns one outcome per commit, in order
   */
  async commitBatch(
    batch: PreparedCommit[],
    answer: (i: number, outcome: Outcome) => void = () => undefined,
    strategy: CommitStrategy = chooseStrategy(this.repository.lastHead, batch),
  ): Promise<Outcome[]> {
    const settle = (i: number, outcome: Outcome) => {
      if ('written' in outcome && outcome.written !== null)
        this.events.committed(committedEvent(outcome.written));
      answer(i, outcome);
      return outcome;
    };
    const outcomes = await strategy.commit(this.repository, batch);
    if (outcomes !== null) return outcomes.map((outcome, i) => settle(i, outcome));
    const each: Outcome[] = [];
    for (const [i, prepared] of batch.entries()) {
      const [outcome] = (await OWN_TRANSACTION.commit(this.repository, [prepared]))!;
      each.push(settle(i, outcome!));
    }
    return each;
  }
}
