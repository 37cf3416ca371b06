import { type StoredNode } from './append.js';
import { nodeKey, type NodeId } from './coords.js';
import { NodeStoreError } from './errors.js';
import { type GetNodes } from './proofs.js';

/**
 * An in-memory node table with the same contract as the ledger's: nodes keyed by (level, index),
 * each written once, read in batches. For tests, benchmarks and offline recomputation (e.g.
 * rebuilding a tree from every entry header to compare roots).
 * @internal exported for the tree suites (proofs.spec.ts, verify.spec.ts, tlog-proof.spec.ts, test/*.spec.ts) and bench/tree.bench.mjs
 */
export class MemoryNodeStore {
  private readonly nodes = new Map<string, Buffer>();

  /** Number of stored nodes. */
  get count(): number {
    return this.nodes.size;
  }

  /**
   * Stores the nodes an append returned.
   * @throws NodeStoreError when a node is already stored with another hash (a perfect subtree never changes)
   */
  add(nodes: readonly StoredNode[]): void {
    for (const node of nodes) {
      const key = nodeKey(node);
      const had = this.nodes.get(key);
      if (had !== undefined && !had.equals(node.hash)) {
        throw new NodeStoreError(
          `node (level ${node.level}, index ${node.index}) is already stored with another hash`,
        );
      }
      this.nodes.set(key, node.hash);
    }
  }

  /**
   * The GetNodes of this store: one hash per id, in order.
   * @throws NodeStoreError naming the first node that is not stored
   */
  readonly getNodes: GetNodes = async (ids: readonly NodeId[]) => this.read(ids);

  /** Synchronous form of getNodes. */
  read(ids: readonly NodeId[]): Buffer[] {
    return ids.map((id) => {
      const hash = this.nodes.get(nodeKey(id));
      if (hash === undefined) {
        throw new NodeStoreError(`node (level ${id.level}, index ${id.index}) is not stored`);
      }
      return hash;
    });
  }
}
