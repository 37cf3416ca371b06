/**
 * Which stored nodes each proof is made of, from transparency-dev/merkle proof/proof_test.go
 * (TestInclusion / TestConsistency). There a `rehash(begin, end)` span lists the nodes of one
 * right-edge proof hash bottom-up; here each proof hash lists its nodes left to right.
 */
import { consistencyPlan, inclusionPlan, TreeRangeError, type ProofPlan } from '../src/index.js';
import { expectRefusal } from './refusal.js';

type Ids = [number, number][][];
const idsOf = (plan: ProofPlan): Ids =>
  plan.hashes.map((positions) =>
    positions.map((p) => [plan.nodes[p]!.level, plan.nodes[p]!.index]),
  );

// [size, index, node IDs per proof hash] from TestInclusion (letters are that file's picture).
const INCLUSION_NODES: [number, number, Ids][] = [
  [1, 0, []],
  [2, 0, [[[0, 1]]]],
  [2, 1, [[[0, 0]]]],
  [3, 1, [[[0, 0]], [[0, 2]]]],
  [
    7,
    0,
    [
      [[0, 1]],
      [[1, 1]],
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ], // b h l=(i,j)
  [
    7,
    1,
    [
      [[0, 0]],
      [[1, 1]],
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ],
  [
    7,
    2,
    [
      [[0, 3]],
      [[1, 0]],
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ],
  [
    7,
    3,
    [
      [[0, 2]],
      [[1, 0]],
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ],
  [7, 4, [[[0, 5]], [[0, 6]], [[2, 0]]]],
  [7, 5, [[[0, 4]], [[0, 6]], [[2, 0]]]],
  [7, 6, [[[1, 2]], [[2, 0]]]],
  [4, 2, [[[0, 3]], [[1, 0]]]],
  [5, 3, [[[0, 2]], [[1, 0]], [[0, 4]]]],
  [6, 3, [[[0, 2]], [[1, 0]], [[1, 2]]]],
  [6, 4, [[[0, 5]], [[2, 0]]]],
  [
    15,
    10,
    [
      [[0, 11]],
      [[1, 4]],
      [
        [1, 6],
        [0, 14],
      ],
      [[3, 0]],
    ],
  ],
  [
    31,
    24,
    [
      [[0, 25]],
      [[1, 13]],
      [
        [1, 14],
        [0, 30],
      ],
      [[3, 2]],
      [[4, 0]],
    ],
  ],
  [
    95,
    81,
    [
      [[0, 80]],
      [[1, 41]],
      [[2, 21]],
      [
        [2, 22],
        [1, 46],
        [0, 94],
      ],
      [[4, 4]],
      [[6, 0]],
    ],
  ],
];
// [size1, size2, node IDs per proof hash] from TestConsistency.
const CONSISTENCY_NODES: [number, number, Ids][] = [
  [1, 2, [[[0, 1]]]],
  [1, 4, [[[0, 1]], [[1, 1]]]],
  [1, 6, [[[0, 1]], [[1, 1]], [[1, 2]]]],
  [2, 3, [[[0, 2]]]],
  [2, 8, [[[1, 1]], [[2, 1]]]],
  [
    3,
    7,
    [
      [[0, 2]],
      [[0, 3]],
      [[1, 0]],
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ],
  [
    4,
    7,
    [
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ],
  [5, 7, [[[0, 4]], [[0, 5]], [[0, 6]], [[2, 0]]]],
  [6, 7, [[[1, 2]], [[0, 6]], [[2, 0]]]],
  [7, 8, [[[0, 6]], [[0, 7]], [[1, 2]], [[2, 0]]]],
  [1, 1, []],
  [2, 2, []],
  [3, 3, []],
  [4, 4, []],
  [5, 5, []],
  [7, 7, []],
  [8, 8, []],
  [2, 4, [[[1, 1]]]],
  [3, 5, [[[0, 2]], [[0, 3]], [[1, 0]], [[0, 4]]]],
  [3, 6, [[[0, 2]], [[0, 3]], [[1, 0]], [[1, 2]]]],
  [4, 6, [[[1, 2]]]],
  [
    1,
    7,
    [
      [[0, 1]],
      [[1, 1]],
      [
        [1, 2],
        [0, 6],
      ],
    ],
  ],
  [
    10,
    15,
    [
      [[1, 4]],
      [[1, 5]],
      [
        [1, 6],
        [0, 14],
      ],
      [[3, 0]],
    ],
  ],
  [
    24,
    31,
    [
      [[3, 2]],
      [
        [2, 6],
        [1, 14],
        [0, 30],
      ],
      [[4, 0]],
    ],
  ],
  [
    81,
    95,
    [
      [[0, 80]],
      [[0, 81]],
      [[1, 41]],
      [[2, 21]],
      [
        [2, 22],
        [1, 46],
        [0, 94],
      ],
      [[4, 4]],
      [[6, 0]],
    ],
  ],
];

describe('which stored nodes a proof reads (transparency-dev/merkle proof/proof_test.go)', () => {
  it.each(INCLUSION_NODES)('inclusion in size %i of index %i', (size, index, want) => {
    expect(idsOf(inclusionPlan(index, size))).toEqual(want);
  });

  it.each(CONSISTENCY_NODES)('consistency from %i to %i', (m, n, want) => {
    expect(idsOf(consistencyPlan(m, n))).toEqual(want);
  });

  it.each([
    [0, 0, 'leaf index 0 is not below tree size 0'],
    [0, 1, 'leaf index 1 is not below tree size 0'],
    [1, 2, 'leaf index 2 is not below tree size 1'],
    [0, 3, 'leaf index 3 is not below tree size 0'],
    [7, 8, 'leaf index 8 is not below tree size 7'],
  ])('refuses inclusion in size %i of index %i', (size, index, message) => {
    expectRefusal(() => inclusionPlan(index, size), TreeRangeError, message);
  });

  it.each([
    [5, 0, 'old tree size 5 is larger than new tree size 0'],
    [9, 8, 'old tree size 9 is larger than new tree size 8'],
  ])('refuses consistency from %i to %i', (m, n, message) => {
    expectRefusal(() => consistencyPlan(m, n), TreeRangeError, message);
  });
});
