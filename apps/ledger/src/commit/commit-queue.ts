/**
 * The queue of one replica's tool commits: a commit that arrives while no batch is in flight is
 * a batch of its own at once; the commits that arrive while one is in flight wait and form the
 * next batch (group commit). One batch at a time, in arrival order. How a batch is written is
 * not this file's business (commit-strategies.ts chooseStrategy).
 */
import type { ReplyOf } from '@world/contracts';
import type { Outcome } from './commit-strategies.js';
import type { PreparedCommit } from './tool-commit.js';

type CommitReply = ReplyOf<'ledger.commit'>;

/** The most commits one batch holds; the rest wait for the next. */
const GROUP_COMMIT_MAX = 64;

/** A commit waiting for its batch, and how to answer it. */
interface Waiting {
  prepared: PreparedCommit;
  resolve(reply: CommitReply): void;
  reject(error: unknown): void;
}

/**
 * Writes one batch and answers each member (index into the batch) as soon as its outcome is
 * known.
 */
export type RunBatch = (
  batch: PreparedCommit[],
  answer: (i: number, outcome: Outcome) => void,
) => Promise<unknown>;

/** Batches one replica's concurrent tool commits (see the file doc). */
export class CommitQueue {
  private readonly waiting: Waiting[] = [];
  private draining = false;
  /**
   * The commits of this replica not yet answered, by invocation id: a resend of one (the
   * planner retries a commit that did not answer in time) shares its answer instead of queuing
   * a second transaction behind the same lock — retries while a commit is slow never pile up on
   * the database's connections.
   */
  private readonly pending = new Map<string, { commitHash: string; reply: Promise<CommitReply> }>();

  constructor(private readonly run: RunBatch) {}

  /**
   * Queues a prepared tool commit: a batch at once when none is in flight, else in the next.
   * A resend of a commit not yet answered (same id and fingerprint) gets that commit's answer.
   * @returns the commit's reply
   * @throws the commit's refusal
   */
  submit(prepared: PreparedCommit): Promise<CommitReply> {
    const { invocationId, commitHash } = prepared;
    const same = this.pending.get(invocationId);
    if (same !== undefined && same.commitHash === commitHash) return same.reply;
    const reply = new Promise<CommitReply>((resolve, reject) => {
      this.waiting.push({ prepared, resolve, reject });
      if (!this.draining) void this.drain();
    });
    if (same === undefined) {
      this.pending.set(invocationId, { commitHash, reply });
      const forget = () => {
        if (this.pending.get(invocationId)?.reply === reply) this.pending.delete(invocationId);
      };
      reply.then(forget, forget);
    }
    return reply;
  }

  /** Runs batches until nobody waits; one batch at a time. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.take();
        const answer = (i: number, outcome: Outcome) => {
          const member = batch[i]!;
          if ('error' in outcome) member.reject(outcome.error);
          else member.resolve(outcome.reply);
        };
        // run answers every member itself; this only guards against a bug leaving one waiting.
        await this.run(
          batch.map((m) => m.prepared),
          answer,
        ).catch((err: unknown) => batch.forEach((m) => m.reject(err)));
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * The next batch: waiting commits in arrival order, at most GROUP_COMMIT_MAX, one per
   * invocation id (a resend waits for the next batch, where it finds its first commit journaled).
   */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const ids = new Set<string>();
    const rest: Waiting[] = [];
    for (const member of this.waiting) {
      const id = member.prepared.invocationId;
      if (batch.length < GROUP_COMMIT_MAX && !ids.has(id)) {
        ids.add(id);
        batch.push(member);
      } else {
        rest.push(member);
      }
    }
    this.waiting.splice(0, this.waiting.length, ...rest);
    return batch;
  }
}
