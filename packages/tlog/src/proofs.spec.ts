import { expectRefusal } from '../test/refusal.js';
import { appendLeaves, EMPTY_TREE } from './append.js';
import { type NodeId } from './coords.js';
import { NodeStoreError, TreeRangeError } from './errors.js';
import { EMPTY_ROOT, leafHash } from './hash.js';
import { MemoryNodeStore } from './memory-store.js';
import {
  buildProof,
  consistencyProof,
  inclusionPlan,
  inclusionProof,
  rootAt,
  rootPlan,
} from './proofs.js';

function storeOf(count: number) {
  const store = new MemoryNodeStore();
  store.add(
    appendLeaves(
      EMPTY_TREE,
      Array.from({ length: count }, (_, i) => leafHash(Buffer.from([i]))),
    ).nodes,
  );
  const calls: NodeId[][] = [];
  const getNodes = async (ids: readonly NodeId[]) => {
    calls.push([...ids]);
    return store.read(ids);
  };
  return { store, calls, getNodes };
}

describe('proofs from stored nodes (one batch read per proof)', () => {
  it('reads every node of a proof in one call, each node once', async () => {
    const { calls, getNodes } = storeOf(1000);
    const proof = await inclusionProof(999, 1000, getNodes);
    expect(proof).toHaveLength(8);
    expect(calls).toHaveLength(1);
    const keys = calls[0]!.map((id) => `${id.level}/${id.index}`);
    expect(new Set(keys).size).toBe(keys.length);
    // 1000 = 512+256+128+64+32+8: PATH splits at 512, 256, 128, 64, 32 (left siblings: the
    // border), then inside the last 8 leaves [992, 1000) at 4, 2, 1 (perfect left siblings).
    expect(keys).toEqual(['0/998', '1/498', '2/248', '5/30', '6/14', '7/6', '8/2', '9/0']);
  });

  it('does not call the getter when a proof or root needs no node', async () => {
    const { calls, getNodes } = storeOf(1);
    expect(await inclusionProof(0, 1, getNodes)).toEqual([]);
    expect(await consistencyProof(0, 1, getNodes)).toEqual([]);
    expect(await consistencyProof(1, 1, getNodes)).toEqual([]);
    expect((await rootAt(0, getNodes)).equals(EMPTY_ROOT)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('refuses a getter answer of the wrong count or width, naming the node', () => {
    const plan = inclusionPlan(2, 5);
    expectRefusal(
      () => buildProof(plan, []),
      NodeStoreError,
      'the node getter answered 0 hashes for 3 nodes',
    );
    expectRefusal(
      () => buildProof(plan, [Buffer.alloc(32), Buffer.alloc(16), Buffer.alloc(32)]),
      NodeStoreError,
      'the node getter answered 16 bytes for node (level 1, index 0), not 32 bytes',
    );
  });

  it('passes on the store’s refusal of a node it does not hold', async () => {
    const { getNodes } = storeOf(4);
    await expect(rootAt(5, getNodes)).rejects.toThrow(
      new NodeStoreError('node (level 0, index 4) is not stored'),
    );
  });

  it('refuses sizes that are not tree sizes', () => {
    expectRefusal(
      () => rootPlan(-1),
      TreeRangeError,
      'tree size must be an integer from 0 to 2^53 − 1, got -1',
    );
    expectRefusal(
      () => rootPlan(2 ** 53),
      TreeRangeError,
      'tree size must be an integer from 0 to 2^53 − 1, got 9007199254740992',
    );
    expectRefusal(
      () => inclusionPlan(-1, 4),
      TreeRangeError,
      'leaf index must be a non-negative integer, got -1',
    );
  });
});
