import type { DatabaseHandle } from '@world/runtime';
import { genesis } from './genesis.js';
import { GenesisRepository } from './genesis.repository.js';

/**
 * Creates the genesis world on the first start of a database, exactly once across replicas
 * (DESIGN.md §7.3; see genesis()).
 * @returns true when this call created it, false when a head was already selected
 */
export function bootstrapGenesis(database: DatabaseHandle): Promise<boolean> {
  return new GenesisRepository(database).bootstrap(genesis());
}
