import { PAGE_DEFAULT, PAGE_MAX } from '@world/contracts';
import { denseRun, pageLimit } from './paging.js';

describe('pageLimit (world-spec §5.1: default 100 when absent or < 1, capped at 500)', () => {
  it.each<[number | undefined, number]>([
    [undefined, PAGE_DEFAULT],
    [0, PAGE_DEFAULT],
    [-3, PAGE_DEFAULT],
    [1, 1],
    [100, 100],
    [PAGE_MAX, PAGE_MAX],
    [PAGE_MAX + 1, PAGE_MAX],
    [10_000, PAGE_MAX],
  ])('limit %p gives %p', (limit, expected) => {
    expect(pageLimit(limit)).toBe(expected);
  });

  it('derives from the named limits', () => {
    expect([PAGE_DEFAULT, PAGE_MAX]).toEqual([100, 500]);
  });
});

describe('denseRun (world-spec §5.8: a page stops at the first absent index)', () => {
  const at = (n: number) => ({ n });
  it.each<[string, number[], number, number[]]>([
    ['a dense page is kept whole', [3, 4, 5], 3, [3, 4, 5]],
    ['a gap cuts the page', [3, 4, 6, 7], 3, [3, 4]],
    ['a page not starting at from is empty', [5, 6], 3, []],
    ['no entries is empty', [], 0, []],
  ])('%s', (_case, indexes, from, expected) => {
    expect(denseRun(indexes.map(at), from, (e) => e.n).map((e) => e.n)).toEqual(expected);
  });
});
