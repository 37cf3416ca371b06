/**
 * The re-hash law of stored data, written once (DESIGN.md §3: "Every read that serves stored
 * bytes re-hashes them against their ref"; world-internals §2.2 step 5.4): an object's bytes must
 * hash to its ref, a log entry's header and transition ref to its entry hash, a world's fields to
 * its ref. Reads refuse what breaks it through the one check of `@world/runtime` (`verifyStored`); the start-up integrity scans
 * report it (world-spec §2.18). Pure.
 */
import { entryHash, refOf, worldRef, type LogEntry, type World } from '@world/canonical';

/** One stored thing, as a read found it. */
export type StoredItem =
  /** an object's payload bytes, read under `ref` */
  | { kind: 'object'; ref: string; payload: Uint8Array }
  /** a log entry row */
  | { kind: 'entry'; entry: LogEntry }
  /** a world row */
  | { kind: 'world'; world: World }
  /**
   * a resolved receipt: the journaled world ref, the world row stored under it and the entry the
   * journal names (null when absent)
   */
  | {
      kind: 'receipt';
      invocationId: string;
      worldRef: string;
      world: World | null;
      entry: LogEntry | null;
    };

/**
 * What is wrong with a stored item, or null when it is what its hash says.
 * @returns e.g. `object sha256:… has bytes that hash to sha256:…`
 */
export function storedProblem(item: StoredItem): string | null {
  switch (item.kind) {
    case 'object': {
      const actual = refOf(item.payload);
      return actual === item.ref ? null : `object ${item.ref} has bytes that hash to ${actual}`;
    }
    case 'entry': {
      const { entry } = item;
      const actual = entryHash(entry.header, entry.transitionRef);
      return actual === entry.entryHash
        ? null
        : `log entry ${entry.header.entryIndex} (${entry.entryHash}) has fields that hash to ${actual}`;
    }
    case 'world': {
      const actual = worldRef(item.world);
      return actual === item.world.ref
        ? null
        : `world ${item.world.ref} has fields that hash to ${actual}`;
    }
    case 'receipt': {
      const { world, entry } = item;
      const of = `receipt ${item.invocationId}`;
      if (world === null || world.ref !== item.worldRef)
        return `${of} names world ${item.worldRef}, which is not stored`;
      if (entry === null) return `${of} names an entry that is not stored`;
      const problem =
        storedProblem({ kind: 'world', world }) ?? storedProblem({ kind: 'entry', entry });
      if (problem !== null) return `${of}: ${problem}`;
      return world.logHead === entry.entryHash
        ? null
        : `${of} names world ${world.ref}, which does not stand on entry ${entry.header.entryIndex}`;
    }
  }
}

/**
 * What a service's start-up integrity scan found (world-spec §2.18), as `GET /readyz` shows it
 * under `integrity.<service>`. The scan reads the newest rows first within INTEGRITY_SCAN_MAX_ROWS
 * rows and INTEGRITY_SCAN_BUDGET_MS; it never rewrites anything.
 */
export interface IntegrityReport {
  /** `scanning` until it ends; then `clean` or `mismatch` */
  state: 'scanning' | 'clean' | 'mismatch';
  /** rows checked so far (entries, worlds, objects, records) */
  scanned: number;
  /** problems found (storedProblem, links, density) */
  mismatches: number;
  /** the first INTEGRITY_REPORT_MAX_PROBLEMS problems, newest first */
  problems: string[];
  /** false when a budget ended the scan before the oldest row */
  complete: boolean;
  /** where an incomplete scan stopped: the rows below it were not checked */
  resume?: string;
}
