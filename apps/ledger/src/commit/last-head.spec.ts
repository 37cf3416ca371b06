import { refOf } from '@world/canonical';
import type { HeadPosition } from './chain.js';
import { LastHead } from './last-head.js';

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
