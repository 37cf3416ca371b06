/**
 * A `log_entries` row as the LogEntry every read answers (world-spec §2.3: the header fields,
 * the entry hash and the transition ref), for the read subjects and the integrity scan alike.
 */
import type { LogEntry } from '@world/canonical';
import { logEntries } from './schema.js';
import { storedRef } from './statements.js';

/** The columns a LogEntry is read from. */
export const ENTRY_COLUMNS = {
  entryIndex: logEntries.entryIndex,
  entryHash: logEntries.entryHash,
  semanticsEpoch: logEntries.semanticsEpoch,
  transitionFn: logEntries.transitionFn,
  interpreter: logEntries.interpreter,
  prevEntryHash: logEntries.prevEntryHash,
  writtenBy: logEntries.writtenBy,
  transitionRef: logEntries.transitionRef,
};

/** A row holding at least ENTRY_COLUMNS. */
export type EntryRow = { [K in keyof typeof ENTRY_COLUMNS]: (typeof logEntries.$inferSelect)[K] };

/** The LogEntry of a row (its refs were validated when written). */
export function entryOfRow(row: EntryRow): LogEntry {
  return {
    header: {
      entryIndex: row.entryIndex,
      semanticsEpoch: row.semanticsEpoch,
      transitionFn: storedRef(row.transitionFn),
      interpreter: storedRef(row.interpreter),
      prevEntryHash: storedRef(row.prevEntryHash),
      writtenBy: row.writtenBy,
    },
    entryHash: storedRef(row.entryHash),
    transitionRef: storedRef(row.transitionRef),
  };
}
