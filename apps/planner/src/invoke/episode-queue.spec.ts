import { DeadlineExceededError } from '@world/contracts';
import { EpisodeQueue } from './episode-queue.js';

describe('EpisodeQueue (one call per episode leaves this planner at a time)', () => {
  it('lets calls of one episode go in arrival order, and other episodes at once', async () => {
    const queue = new EpisodeQueue();
    const order: string[] = [];
    const first = await queue.enter('a', 1_000);
    const second = queue.enter('a', 1_000).then((leave) => (order.push('a2'), leave));
    const third = queue.enter('a', 1_000).then((leave) => (order.push('a3'), leave));
    const other = await queue.enter('b', 0);
    order.push('b1');
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['b1']);
    first();
    (await second)();
    (await third)();
    other();
    expect([order, queue.size]).toEqual([['b1', 'a2', 'a3'], 0]);
  });

  it('refuses a call that waited too long with the broker lease text; those behind keep waiting for the one ahead', async () => {
    const queue = new EpisodeQueue();
    const first = await queue.enter('a', 1_000);
    const late = queue.enter('a', 30);
    let thirdIn = false;
    const third = queue.enter('a', 1_000).then((leave) => ((thirdIn = true), leave));
    await expect(late).rejects.toThrow(
      new DeadlineExceededError('lease of episode "a" is held by another call; waited 30 ms'),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(thirdIn).toBe(false);
    first();
    (await third)();
    expect([thirdIn, queue.size]).toEqual([true, 0]);
  });

  it('ignores a second leave', async () => {
    const queue = new EpisodeQueue();
    const first = await queue.enter('a', 0);
    first();
    first();
    const again = await queue.enter('a', 0);
    again();
    expect(queue.size).toBe(0);
  });
});
