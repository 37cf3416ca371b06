import { InFlight } from './inflight.js';

// world-spec §7.2: a shutdown drains in-flight requests, bounded; InFlight is what it waits on.
describe('InFlight', () => {
  it('is idle at once when nothing was accepted', async () => {
    await expect(new InFlight().idle(10_000)).resolves.toBe(true);
  });

  it('becomes idle when the last accepted unit leaves', async () => {
    const work = new InFlight();
    work.enter();
    work.enter();
    const idle = work.idle(10_000);
    work.leave();
    expect(work.size).toBe(1);
    work.leave();
    await expect(idle).resolves.toBe(true);
    expect(work.size).toBe(0);
  });

  it('reports false when the bound ends with work still in flight', async () => {
    const work = new InFlight();
    work.enter();
    await expect(work.idle(5)).resolves.toBe(false);
    expect(work.size).toBe(1);
  });

  it('counts a tracked promise until it settles, rejected or not', async () => {
    const work = new InFlight();
    let fail!: (e: Error) => void;
    const tracked = work.track(new Promise<void>((_, reject) => (fail = reject)));
    expect(work.size).toBe(1);
    fail(new Error('boom'));
    await expect(tracked).rejects.toThrow('boom');
    await expect(work.idle(10_000)).resolves.toBe(true);
  });
});
