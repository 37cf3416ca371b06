import { canonicalBytes } from './jcs.js';
import { refOf, type Ref } from './ref.js';

/** The frozen six-field header of a log entry (world-spec §2.11). */
export interface EntryHeader {
  entryIndex: number;
  semanticsEpoch: number;
  transitionFn: Ref;
  interpreter: Ref;
  prevEntryHash: Ref;
  writtenBy: string;
}

/** A log entry as served by `GET /v1/log/{index}` (world-spec §2.11). */
export interface LogEntry {
  header: EntryHeader;
  entryHash: Ref;
  transitionRef: Ref;
}

/** An immutable world row (world-spec §2.12). */
export interface World {
  ref: Ref;
  revision: number;
  stateRoot: Ref;
  logHead: Ref;
}

/**
 * The canonical bytes of an entry: JCS of {entryIndex, semanticsEpoch, transitionFn, interpreter,
 * prevEntryHash, writtenBy, transitionRef} (DESIGN.md §4). Its entry hash is their sha256, and
 * they are the entry's leaf in the log's Merkle tree (RFC 9162 §2.1.1).
 */
export function entryBytes(header: EntryHeader, transitionRef: Ref): Buffer {
  return canonicalBytes({
    entryIndex: header.entryIndex,
    semanticsEpoch: header.semanticsEpoch,
    transitionFn: header.transitionFn,
    interpreter: header.interpreter,
    prevEntryHash: header.prevEntryHash,
    writtenBy: header.writtenBy,
    transitionRef,
  });
}

/** Entry hash = sha256(entryBytes(header, transitionRef)). Source: DESIGN.md §4. */
export function entryHash(header: EntryHeader, transitionRef: Ref): Ref {
  return refOf(entryBytes(header, transitionRef));
}

/** World ref = sha256(JCS of {revision, stateRoot, logHead}). Source: DESIGN.md §4. */
export function worldRef(world: Pick<World, 'revision' | 'stateRoot' | 'logHead'>): Ref {
  return refOf(
    canonicalBytes({
      revision: world.revision,
      stateRoot: world.stateRoot,
      logHead: world.logHead,
    }),
  );
}

/** The previous-entry hash of the genesis entry: sha256 of zero bytes ("nothing before"). */
export const GENESIS_PREV_ENTRY_HASH: Ref = refOf(new Uint8Array(0));
