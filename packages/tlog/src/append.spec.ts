import { expectRefusal } from '../test/refusal.js';
import { appendLeaves, checkTreeState, EMPTY_TREE, foldRight, rootOfState } from './append.js';
import { borderIds } from './coords.js';
import { TreeStateError } from './errors.js';
import { EMPTY_ROOT, leafHash, nodeHash } from './hash.js';

const leaf = (i: number) => leafHash(Buffer.from(`leaf-${i}`));
const leaves = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => leaf(from + i));

describe('appendLeaves (the storage model: each perfect subtree written once, when it completes)', () => {
  it('writes the leaf and one parent per trailing 1-bit of its index', () => {
    // leaf 7 = 0b111 completes (0,7), (1,3), (2,1) and (3,0).
    const before = appendLeaves(EMPTY_TREE, leaves(0, 7)).state;
    const step = appendLeaves(before, [leaf(7)]);
    expect(step.nodes.map(({ level, index }) => [level, index])).toEqual([
      [0, 7],
      [1, 3],
      [2, 1],
      [3, 0],
    ]);
    expect(step.state.size).toBe(8);
    expect(step.state.border).toHaveLength(1);
    expect(step.root.equals(step.nodes[3]!.hash)).toBe(true);
  });

  it('extends a group once: the nodes of 5 leaves appended to 3 are those of leaves 3…7', () => {
    const three = appendLeaves(EMPTY_TREE, leaves(0, 3));
    const group = appendLeaves(three.state, leaves(3, 8));
    expect(group.nodes.map(({ level, index }) => `${level}/${index}`)).toEqual([
      '0/3',
      '1/1',
      '2/0',
      '0/4',
      '0/5',
      '1/2',
      '0/6',
      '0/7',
      '1/3',
      '2/1',
      '3/0',
    ]);
    expect(group.state.size).toBe(8);
  });

  it('keeps the compact range of borderIds(size) and folds it to the root', () => {
    const step = appendLeaves(EMPTY_TREE, leaves(0, 6));
    expect(borderIds(6)).toEqual([
      { level: 2, index: 0 },
      { level: 1, index: 2 },
    ]);
    const [left, right] = step.state.border;
    expect(step.root.equals(nodeHash(left!, right!))).toBe(true);
    expect(rootOfState(step.state).equals(step.root)).toBe(true);
  });

  it('has EMPTY_ROOT for the empty tree and an empty group changes nothing', () => {
    expect(rootOfState(EMPTY_TREE).equals(EMPTY_ROOT)).toBe(true);
    expect(foldRight([]).equals(EMPTY_ROOT)).toBe(true);
    const step = appendLeaves(EMPTY_TREE, []);
    expect(step.nodes).toEqual([]);
    expect(step.state).toEqual({ size: 0, border: [] });
  });

  it('does not alias its inputs: changing a caller buffer later changes no stored hash', () => {
    const input = leaf(0);
    const step = appendLeaves(EMPTY_TREE, [input]);
    input.fill(0);
    expect(step.nodes[0]!.hash.equals(leaf(0))).toBe(true);
  });

  it.each([
    [{ size: 3, border: [leaf(0)] }, 'a tree of size 3 has 2 compact range hashes, got 1'],
    [{ size: -1, border: [] }, 'tree size must be an integer from 0 to 2^53 − 1, got -1'],
    [{ size: 1.5, border: [] }, 'tree size must be an integer from 0 to 2^53 − 1, got 1.5'],
    [
      { size: 1, border: [Buffer.alloc(31)] },
      'compact range hash 0 must be 32 bytes, got 31 bytes',
    ],
  ])('refuses the inconsistent state %p', (state, message) => {
    expectRefusal(() => checkTreeState(state), TreeStateError, message);
    expectRefusal(() => appendLeaves(state, [leaf(0)]), TreeStateError, message);
  });

  it('refuses a leaf hash that is not 32 bytes, and a size past 2^53 − 1', () => {
    expectRefusal(
      () => appendLeaves(EMPTY_TREE, [leaf(0), Buffer.alloc(33)]),
      TreeStateError,
      'leaf hash 1 must be 32 bytes, got 33 bytes',
    );
    const full = {
      size: Number.MAX_SAFE_INTEGER,
      border: borderIds(Number.MAX_SAFE_INTEGER).map(() => leaf(0)),
    };
    expectRefusal(
      () => appendLeaves(full, [leaf(1)]),
      TreeStateError,
      'appending 1 leaves would pass 2^53 − 1',
    );
  });
});
