/**
 * The one check every read of stored data goes through before it serves anything (DESIGN.md §3;
 * world-internals §2.2 step 5.4): re-hash, and refuse — never serve as valid — what does not hash
 * to the ref it is stored under. The mismatch is logged for the operator where it was found.
 */
import { storedProblem, StoredObjectCorruptError, type StoredItem } from '@world/contracts';
import { serviceLogger } from './logger.js';

/**
 * Passes a stored item that is what its hash says (storedProblem); refuses anything else.
 * @param service the reading service, named in the operator's log line
 * @returns the item, unchanged
 * @throws StoredObjectCorruptError naming the item and what it hashes to (logged at error level
 *   as `stored object corrupt`)
 */
export function verifyStored<T extends StoredItem>(service: string, item: T): T {
  const problem = storedProblem(item);
  if (problem === null) return item;
  serviceLogger(service).error({ problem }, 'stored object corrupt');
  throw new StoredObjectCorruptError(problem);
}
