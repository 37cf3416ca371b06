/**
 * The ledger's start-up integrity scan (world-spec §2.18; DESIGN.md §3 "Each owner scans its
 * hashed data at start"). Newest first, within the scan's budgets, it checks that
 * 1. the newest entry is the one the head row names;
 * 2. every entry recomputes to its entry hash (storedProblem), the log is dense, and each entry
 *    links to the one before it (prevEntryHash; entry 0 to GENESIS_PREV_ENTRY_HASH);
 * 2b. the tree rows covering the checked entries agree with them and with each other
 *    (scan-tree.ts);
 * 3. every object the checked entries carried (newest carrier first), then every object no
 *    entry carries (the registry archives), hashes to its ref.
 * The entries may use half of the row budget, so a long log still has its newest objects
 * checked. Mismatches are reported (IntegrityScan), never repaired.
 */
import { GENESIS_PREV_ENTRY_HASH, type LogEntry, type Ref } from '@world/canonical';
import {
  INTEGRITY_SCAN_OBJECT_PAGE,
  INTEGRITY_SCAN_PAGE_ROWS,
  storedProblem,
} from '@world/contracts';
import type { IntegrityScan } from '@world/runtime';
import { entryLeafHash } from '../commit/tree.js';
import type { IntegrityRepository, TreeIntegrityRepository } from './integrity.repository.js';
import { scanTree } from './scan-tree.js';

/** Above any entry index: the first page starts at the newest entry, whatever the head says. */
const NEWEST = Number.MAX_SAFE_INTEGER;

/**
 * Scans the ledger's entries and objects.
 * @param maxRows the scan's row budget (the entries get half of it)
 * @returns undefined when every row was checked, else what was left unchecked
 */
export async function scanLedger(
  repository: IntegrityRepository,
  scan: IntegrityScan,
  maxRows: number,
  tree?: TreeIntegrityRepository,
): Promise<string | undefined> {
  const head = await repository.head();
  if (head === null) return undefined;
  const leaves = new Map<number, Buffer>();
  const lowest = await scanEntries(repository, scan, head, Math.floor(maxRows / 2), leaves);
  if (tree !== undefined) await scanTree(tree, scan, lowest, head.entryIndex + 1, leaves);
  const left: string[] = [];
  if (lowest > 0) left.push(`entries below #${lowest} and the objects only they carried`);

  // Each object phase asks for one ref more than it may check, to know whether any is left.
  const room = () => Math.max(0, maxRows - scan.report().scanned);
  let limit = room();
  const carried = await repository.carriedSince(lowest, limit + 1);
  const carriedLeft = await scanObjects(repository, scan, carried.slice(0, limit));
  if (carriedLeft > 0 || carried.length > limit)
    left.push(
      `objects carried by entries #${lowest}..#${head.entryIndex} after the newest checked`,
    );
  if (!scan.withinBudget()) return [...left, 'the published objects'].join('; ');

  limit = room();
  const published = await repository.published(limit + 1);
  const publishedLeft = await scanObjects(repository, scan, published.slice(0, limit));
  if (publishedLeft > 0 || published.length > limit) left.push('some of the published objects');
  return left.length === 0 ? undefined : left.join('; ');
}

/**
 * Checks entries from the newest down while the budget lasts.
 * @returns the lowest entry index checked (0 when the whole log was)
 */
async function scanEntries(
  repository: IntegrityRepository,
  scan: IntegrityScan,
  head: { entryIndex: number; entryHash: Ref },
  maxRows: number,
  leaves: Map<number, Buffer>,
): Promise<number> {
  let cursor = NEWEST;
  let above: LogEntry | null = null;
  let lowest = head.entryIndex + 1;
  while (lowest > 0 && scan.withinBudget() && scan.report().scanned < maxRows) {
    const limit = Math.min(INTEGRITY_SCAN_PAGE_ROWS, maxRows - scan.report().scanned);
    const page = await repository.entriesDown(cursor, limit);
    if (page.length === 0) {
      scan.problem(`log entries #0..#${lowest - 1} are missing`);
      return 0;
    }
    for (const entry of page) {
      checkEntry(scan, entry, above, head);
      if (storedProblem({ kind: 'entry', entry }) === null)
        leaves.set(entry.header.entryIndex, entryLeafHash(entry));
      above = entry;
      lowest = entry.header.entryIndex;
      cursor = lowest - 1;
    }
    scan.counted(page.length);
  }
  return Math.max(0, lowest);
}

/** The laws one entry must keep with its newer neighbour (already checked) and the head. */
function checkEntry(
  scan: IntegrityScan,
  entry: LogEntry,
  above: LogEntry | null,
  head: { entryIndex: number; entryHash: Ref },
): void {
  const i = entry.header.entryIndex;
  scan.problem(storedProblem({ kind: 'entry', entry }));
  if (above === null) {
    if (i !== head.entryIndex || entry.entryHash !== head.entryHash)
      scan.problem(
        `the head names entry #${head.entryIndex} (${head.entryHash}), but the newest entry is #${i} (${entry.entryHash})`,
      );
  } else if (above.header.entryIndex !== i + 1) {
    scan.problem(`log entries #${i + 1}..#${above.header.entryIndex - 1} are missing`);
  } else if (above.header.prevEntryHash !== entry.entryHash) {
    scan.problem(
      `log entry #${i + 1} links to ${above.header.prevEntryHash}, not to entry #${i}'s hash ${entry.entryHash}`,
    );
  }
  if (i === 0 && entry.header.prevEntryHash !== GENESIS_PREV_ENTRY_HASH)
    scan.problem(
      `log entry #0 links to ${entry.header.prevEntryHash}, not to the genesis prev ${GENESIS_PREV_ENTRY_HASH}`,
    );
}

/**
 * Re-hashes objects in pages of INTEGRITY_SCAN_OBJECT_PAGE while the budget lasts.
 * @returns how many of `refs` were left unchecked
 */
async function scanObjects(
  repository: IntegrityRepository,
  scan: IntegrityScan,
  refs: Ref[],
): Promise<number> {
  let at = 0;
  while (at < refs.length && scan.withinBudget()) {
    const chunk = refs.slice(at, at + INTEGRITY_SCAN_OBJECT_PAGE);
    for (const { ref, payload } of await repository.payloads(chunk))
      scan.problem(storedProblem({ kind: 'object', ref, payload }));
    scan.counted(chunk.length);
    at += chunk.length;
  }
  return refs.length - at;
}
