import { renewEvery } from './renewal.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('renewEvery (DESIGN.md §2: a lease is renewed while its call runs)', () => {
  it('renews until stopped, one renewal at a time, none after stop', async () => {
    let active = 0;
    let overlapped = false;
    let count = 0;
    const renewal = renewEvery(
      2,
      async () => {
        active++;
        overlapped ||= active > 1;
        await sleep(5);
        count++;
        active--;
      },
      () => 'continue',
    );
    while (count < 3) await sleep(5);
    await renewal.stop();
    const atStop = count;
    await sleep(30);
    expect([count, overlapped, active]).toEqual([atStop, false, 0]);
  });

  it('goes on after an error the handler answers with continue, and stops on stop', async () => {
    const seen: string[] = [];
    let n = 0;
    const renewal = renewEvery(
      1,
      async () => {
        n++;
        throw new Error(`failure ${n}`);
      },
      (err) => {
        seen.push((err as Error).message);
        return n < 3 ? 'continue' : 'stop';
      },
    );
    while (seen.length < 3) await sleep(5);
    await sleep(20);
    await renewal.stop();
    expect(seen).toEqual(['failure 1', 'failure 2', 'failure 3']);
  });

  it('never renews when stopped before its first interval', async () => {
    let count = 0;
    const renewal = renewEvery(
      20,
      async () => {
        count++;
      },
      () => 'continue',
    );
    await renewal.stop();
    await sleep(40);
    expect(count).toBe(0);
  });
});
