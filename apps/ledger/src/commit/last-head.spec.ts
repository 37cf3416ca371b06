import { refOf } from '@world/canonical';
import type { HeadPosition } from './chain.js';
import { FAST_PATH_BACKOFF, LastHead } from './last-head.js';

const at = (entryIndex: number, label = `entry ${entryIndex}`): HeadPosition => ({
  worldRef: refOf(`world ${label}`),
  entryIndex,
  entryHash: refOf(label),
  revision: entryIndex,
});

describe('LastHead (the head a replica last saw; the log only grows)', () => {
  it.each<[string, HeadPosition[], HeadPosition | null]>([
    ['nothing seen', [], null],
    ['one head', [at(3)], at(3)],
    ['a newer head replaces an older one', [at(3), at(5)], at(5)],
    ['an older head never replaces a newer one (answers out of order)', [at(5), at(3)], at(5)],
    ['the same index seen again replaces it', [at(5), at(5, 'read again')], at(5, 'read again')],
  ])('%s', (_case, seen, expected) => {
    const last = new LastHead();
    for (const head of seen) last.see(head);
    expect(last.get()).toEqual(expected);
  });
});

describe('LastHead.worthTrying (backing off the one-statement commit after repeated misses)', () => {
  /** The answers of worthTrying for `n` lone commits, each reporting `outcome` when it tried. */
  const run = (last: LastHead, n: number, outcome: 'hit' | 'miss'): boolean[] =>
    Array.from({ length: n }, () => {
      const tried = last.worthTrying();
      if (tried) {
        if (outcome === 'hit') last.landed();
        else last.missed();
      }
      return tried;
    });

  it('keeps trying after an isolated miss (one replica: a REST commit moved the head)', () => {
    const last = new LastHead();
    expect([...run(last, 1, 'miss'), ...run(last, 3, 'hit'), ...run(last, 1, 'miss')]).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('skips FAST_PATH_BACKOFF lone commits after two misses in a row, then tries again', () => {
    const last = new LastHead();
    expect(FAST_PATH_BACKOFF).toBe(8);
    expect(run(last, 2, 'miss')).toEqual([true, true]);
    expect(run(last, 9, 'miss')).toEqual([...Array<boolean>(8).fill(false), true]);
    // that try missed again (a second miss in a row): back off again; a hit ends it for good
    expect(run(last, 9, 'hit')).toEqual([...Array<boolean>(8).fill(false), true]);
    expect(run(last, 3, 'hit')).toEqual([true, true, true]);
  });
});
