/**
 * The ledger's first-start bootstrap: the genesis world (DESIGN.md §7.3) and the log's Merkle
 * tree where the head row has none yet — right after the genesis of a fresh database (one leaf),
 * and once for a database written before the tree existed (every entry, in index order),
 * through the same law as every commit (commit/tree.ts extendTree).
 */
import type { DatabaseHandle } from '@world/runtime';
import { EMPTY_TREE, type TreeState } from '@world/tlog';
import { extendTree } from '../commit/tree.js';
import { genesis } from './genesis.js';
import { GenesisRepository } from './genesis.repository.js';

/** Entries read (and leaves appended) per round trip while building a tree. */
const BUILD_PAGE = 5000;

/**
 * Creates the genesis world on the first start of a database, exactly once across replicas
 * (see genesis()), then the tree over entries 0…head when the head row has no border.
 * @returns true when this call created the genesis, false when a head was already selected
 * @throws Error when the log is not dense from 0 to the head (the tree of a log with a gap is
 *   not defined; the integrity scan names the gap)
 */
export async function bootstrapGenesis(database: DatabaseHandle): Promise<boolean> {
  const repository = new GenesisRepository(database);
  const created = await repository.bootstrap(genesis());
  await repository.buildTree(async (t) => {
    const head = await t.headWithoutTree();
    if (head === null) return;
    const size = head + 1;
    await t.clearNodes();
    let state: TreeState = EMPTY_TREE;
    let border: Buffer = Buffer.alloc(0);
    while (state.size < size) {
      const count = Math.min(BUILD_PAGE, size - state.size);
      const page = await t.entries(state.size, count);
      page.forEach((entry, i) => {
        if (entry.header.entryIndex !== state.size + i)
          throw new Error(`cannot build the log's tree: log entry #${state.size + i} is missing`);
      });
      if (page.length !== count)
        throw new Error(
          `cannot build the log's tree: log entry #${state.size + page.length} is missing`,
        );
      const extension = extendTree(state, page);
      await t.insertNodes(extension);
      state = extension.state;
      border = extension.border;
    }
    await t.setBorder(border);
  });
  return created;
}
