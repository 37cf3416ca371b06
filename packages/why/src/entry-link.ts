/**
 * The entry link of `world why` (world-spec §2.11, §7.3): the header recomputes to its entry hash,
 * and its prev is the hash of the entry before, whose own fields must hash to it — a header row
 * altered in storage breaks its own link and the next entry's, no other. An entry World refuses
 * to serve (EntryRefused) is named as such.
 */
import { entryHash, GENESIS_PREV_ENTRY_HASH, type LogEntry } from '@world/canonical';
import { shortRef } from './format.js';
import { EntryRefused, type StoredEntry } from './reads.js';
import { link, NOT_VISIBLE, type Link } from './link.js';

/** The read's entry, or its refusal as a value (the walk names it as a broken link). */
export async function refusedOr(
  read: Promise<StoredEntry | null>,
): Promise<StoredEntry | EntryRefused | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof EntryRefused) return err;
    throw err;
  }
}

/** The world of an entry whose record the caller may not read: not recomputable here, a stop. */
export function hiddenWorld(index: number): Link {
  return {
    name: 'world',
    ok: null,
    ref: '-',
    detail: `entry #${index}'s record is ${NOT_VISIBLE}: its world cannot be recomputed here`,
    hidden: true,
  };
}

/**
 * What breaks an entry's prev link (world-spec §2.11): entry 0's prev must be the genesis prev
 * (sha256 of nothing); any other's must be the hash entry #index-1's own fields hash to, and that
 * entry must be served. Empty when the link holds.
 * @param previous entry #index-1 as read (null: absent; EntryRefused: World refuses it)
 */
export function prevProblems(
  entry: LogEntry,
  index: number,
  previous: LogEntry | EntryRefused | null,
): string[] {
  const prev = entry.header.prevEntryHash;
  if (index === 0)
    return prev === GENESIS_PREV_ENTRY_HASH
      ? []
      : [`prev ${shortRef(prev)} is not the genesis prev (sha256 of nothing)`];
  if (previous === null) return [`entry #${index - 1} is missing: prev cannot be linked`];
  if (previous instanceof EntryRefused) return [`${previous.message}: prev cannot be linked`];
  const fields = entryHash(previous.header, previous.transitionRef);
  // The stored hash prev names is not what entry #index-1's fields hash to: the link is broken.
  if (fields !== previous.entryHash)
    return [
      `entry #${index - 1}'s fields hash to ${shortRef(fields)}, not its stored hash ${shortRef(previous.entryHash)}: prev cannot be linked`,
    ];
  if (prev !== previous.entryHash)
    return [
      `prev ${shortRef(prev)} is not entry #${index - 1}'s hash ${shortRef(previous.entryHash)}`,
    ];
  return [];
}

export function entryLink(
  entry: LogEntry,
  index: number,
  previous: LogEntry | EntryRefused | null,
  pin: { ref: string; version: string } | null,
): Link {
  const h = entry.header;
  const problems: string[] = [];
  const recomputed = entryHash(h, entry.transitionRef);
  if (recomputed !== entry.entryHash)
    problems.push(
      `fields hash to ${shortRef(recomputed)}, not its stored hash ${shortRef(entry.entryHash)}`,
    );
  if (h.entryIndex !== index) problems.push(`header.entryIndex is ${h.entryIndex}, not ${index}`);
  problems.push(...prevProblems(entry, index, previous));
  const pinText =
    pin === null
      ? ''
      : pin.ref === h.interpreter
        ? ` (${pin.version}, the planner's pin)`
        : " (not the planner's current pin)";
  return link(
    'entry',
    entry.entryHash,
    problems,
    `#${h.entryIndex} writtenBy ${h.writtenBy} prev ${shortRef(h.prevEntryHash)} transitionFn ${shortRef(h.transitionFn)} interpreter ${shortRef(h.interpreter)}${pinText}`,
  );
}
