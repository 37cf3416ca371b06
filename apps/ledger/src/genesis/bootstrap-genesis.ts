import type { DatabaseHandle } from '@world/runtime';
import { bootstrapTree } from './bootstrap-tree.js';
import { genesis } from './genesis.js';
import { GenesisRepository } from './genesis.repository.js';

/**
 * Creates the genesis world on the first start of a database, exactly once across replicas
 * (DESIGN.md §7.3; see genesis()), then the log's Merkle tree where the head has none yet (the
 * genesis leaf, or every entry of a log written before the tree existed: bootstrapTree).
 * @returns true when this call created the genesis, false when a head was already selected
 */
export async function bootstrapGenesis(database: DatabaseHandle): Promise<boolean> {
  const created = await new GenesisRepository(database).bootstrap(genesis());
  await bootstrapTree(database);
  return created;
}
