/**
 * The genesis world (DESIGN.md §7.3): created exactly once, on the ledger's first start, so the
 * log is never empty and every commit — tool call or REST — appends after an existing head.
 *
 * - object G = makeJsonObject('world/genesis/v1', 'ledger', {"world":"genesis"});
 * - entry 0 = {entryIndex 0, semanticsEpoch 1, transitionFn G.hash, interpreter G.hash,
 *   prevEntryHash GENESIS_PREV_ENTRY_HASH (sha256 of zero bytes), writtenBy 'ledger:genesis',
 *   transitionRef G.hash}, entryHash = entryHash(header, transitionRef);
 * - world revision 0: stateRoot G.hash, logHead entry 0's hash, ref = worldRef(...); selected;
 * - the epoch registry object makeJsonObject('world/epoch-registry/v1', 'ledger',
 *   {"epochs":[{"epoch":1,"release":"world-ts/0.1"}]}) published as registry head
 *   'world/epoch-registry/v1' (world-spec §2.17: bootstrapped at first start, epoch 1);
 * - one commit_objects row: G carried by entry 0.
 *
 * Every value is a pure function of these constants, so every ledger computes the same genesis
 * and a REST client can predict entry 0 and the genesis world exactly.
 */
import {
  entryHash,
  GENESIS_PREV_ENTRY_HASH,
  makeJsonObject,
  worldRef,
  type LogEntry,
  type World,
  type WorldObject,
} from '@world/canonical';
import { SEMANTIC_IDS } from '@world/contracts';

/** `writtenBy` of entry 0. */
const GENESIS_WRITTEN_BY = 'ledger:genesis';
/** Provenance of the objects the ledger writes itself. */
const LEDGER_PROVENANCE = 'ledger';
/** The first semantics epoch (world-spec §2.17). */
const FIRST_SEMANTICS_EPOCH = 1;
/** The release the first epoch names. */
const FIRST_EPOCH_RELEASE = 'world-ts/0.1';

/** Everything the genesis bootstrap writes. */
export interface Genesis {
  object: WorldObject;
  epochRegistry: WorldObject;
  entry: LogEntry;
  world: World;
}

/** The genesis records (pure; DESIGN.md §7.3). */
export function genesis(): Genesis {
  const object = makeJsonObject(SEMANTIC_IDS.genesis, LEDGER_PROVENANCE, { world: 'genesis' });
  const epochRegistry = makeJsonObject(SEMANTIC_IDS.epochRegistry, LEDGER_PROVENANCE, {
    epochs: [{ epoch: FIRST_SEMANTICS_EPOCH, release: FIRST_EPOCH_RELEASE }],
  });
  const header = {
    entryIndex: 0,
    semanticsEpoch: FIRST_SEMANTICS_EPOCH,
    transitionFn: object.hash,
    interpreter: object.hash,
    prevEntryHash: GENESIS_PREV_ENTRY_HASH,
    writtenBy: GENESIS_WRITTEN_BY,
  };
  const hash = entryHash(header, object.hash);
  const shape = { revision: 0, stateRoot: object.hash, logHead: hash };
  return {
    object,
    epochRegistry,
    entry: { header, entryHash: hash, transitionRef: object.hash },
    world: { ref: worldRef(shape), ...shape },
  };
}
