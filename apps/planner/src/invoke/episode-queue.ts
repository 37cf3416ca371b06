import { DeadlineExceededError } from '@world/contracts';

/**
 * The calls of one planner process for one episode, sent to the broker one at a time, in arrival
 * order (DESIGN.md §2 "Per-episode serialization": the broker's episode lease serializes calls;
 * this queue only decides when this process asks for it).
 *
 * Why: a call that waits for the lease inside the broker outlives its planner. When the planner
 * holding an episode's lease is SIGKILLed with a second call of that episode queued at the broker,
 * the queued request takes the lapsed lease (EPISODE_LEASE_TTL_MS after the last renewal), runs its
 * effect for a caller that is gone, and — nobody renewing or releasing it — keeps the lease for
 * another ttl: the episode stalled twice the lease (issue 11 item 14), and an effect ran that no
 * one can commit. Held here, the second call dies with its process and never reaches the broker;
 * fencing is unchanged (the broker still takes, renews and fences the lease).
 */
export class EpisodeQueue {
  /** per episode: settles when every call that entered so far has left */
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Waits until every earlier call of `episodeId` in this process has left, then returns the
   * function that lets the next one go (call it exactly once, when the call ends, whatever way).
   * A call that gives up waiting keeps its place: the ones behind it still wait for the calls
   * ahead of it.
   * @param episodeId the episode
   * @param waitMs how long to wait (ms): the same lease wait the broker would have granted
   * @throws DeadlineExceededError `lease of episode "<id>" is held by another call; waited <n> ms`
   *   (the broker's own text for a lease wait that ran out)
   */
  async enter(episodeId: string, waitMs: number): Promise<() => void> {
    const before = this.tails.get(episodeId) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => mine);
    this.tails.set(episodeId, tail);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      done();
      if (this.tails.get(episodeId) === tail) this.tails.delete(episodeId);
    };
    let timer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([
      before.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (!ready) {
      leave();
      throw new DeadlineExceededError(
        `lease of episode "${episodeId}" is held by another call; waited ${waitMs} ms`,
      );
    }
    return leave;
  }

  /** Episodes with a call in this process (entered and not yet left). */
  get size(): number {
    return this.tails.size;
  }
}
