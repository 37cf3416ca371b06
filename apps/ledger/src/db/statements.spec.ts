import { chunkRows, groupWrites } from './statements.js';

describe('chunkRows (PostgreSQL caps a statement at 65 535 bind parameters)', () => {
  it.each<[string, number, number, number, number, number[]]>([
    ['rows that fit stay in one chunk', 7, 5, 10, 100, [7]],
    ['rows beyond the cap are split', 7, 5, 10, 30, [4, 3]],
    ['a reserve shrinks every chunk', 7, 5, 20, 30, [2, 2, 2, 1]],
    ['a row wider than the room still gets a chunk', 2, 50, 0, 30, [1, 1]],
    ['no rows give no chunks', 0, 5, 0, 30, []],
  ])('%s', (_case, n, perRow, reserve, cap, sizes) => {
    const rows = Array.from({ length: n }, (_, i) => i);
    const chunks = chunkRows(rows, perRow, reserve, cap);
    expect(chunks.map((c) => c.length)).toEqual(sizes);
    expect(chunks.flat()).toEqual(rows);
  });

  it('defaults to the PostgreSQL cap', () => {
    expect(
      chunkRows(
        Array.from({ length: 13_107 }, (_, i) => i),
        5,
        0,
      ).map((c) => c.length),
    ).toEqual([13_107]);
    expect(
      chunkRows(
        Array.from({ length: 13_108 }, (_, i) => i),
        5,
        0,
      ).map((c) => c.length),
    ).toEqual([13_107, 1]);
  });
});

describe('groupWrites (one statement per group, order kept)', () => {
  const w = (name: string, params: number) => ({ name, params });
  it.each<[string, Array<{ name: string; params: number }>, number, string[][]]>([
    [
      'writes within the cap share one statement',
      [w('a', 3), w('b', 3), w('c', 3)],
      10,
      [['a', 'b', 'c']],
    ],
    [
      'the write that would overflow starts the next group',
      [w('a', 4), w('b', 4), w('c', 4)],
      10,
      [['a', 'b'], ['c']],
    ],
    [
      'a write over the cap is alone',
      [w('a', 2), w('b', 20), w('c', 2)],
      10,
      [['a'], ['b'], ['c']],
    ],
    ['no writes give no groups', [], 10, []],
  ])('%s', (_case, writes, cap, names) => {
    expect(groupWrites(writes, cap).map((g) => g.map((x) => x.name))).toEqual(names);
  });
});
