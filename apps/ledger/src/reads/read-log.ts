/**
 * Reads of the log and its worlds: `ledger.head`, `ledger.world.get`, `ledger.log.entry`,
 * `ledger.log.range` (world-spec §5.3, §5.4, §5.7, §5.8).
 */
import { NotFoundError, type ParsedRequestOf, type ReplyOf } from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { denseRun, pageLimit } from './paging.js';
import type { ReadsRepository } from './reads.repository.js';

/**
 * The selected head: its world ref, world row and entry index (all null before genesis). Every
 * row these reads serve is re-hashed first (DESIGN.md §3): a world must recompute to its ref, an
 * entry to its entry hash.
 * @throws StoredObjectCorruptError when the head's world row does not recompute to its ref
 */
export async function getHead(repository: ReadsRepository): Promise<ReplyOf<'ledger.head'>> {
  const head = await repository.head();
  if (head === null) return { worldRef: null, world: null, entryIndex: null };
  verifyStored(LEDGER_SERVICE, { kind: 'world', world: head.world });
  return { worldRef: head.world.ref, world: head.world, entryIndex: head.entryIndex };
}

/**
 * One world row.
 * @throws NotFoundError 'world not found'
 * @throws StoredObjectCorruptError when the row does not recompute to its ref
 */
export async function getWorld(
  repository: ReadsRepository,
  request: ParsedRequestOf<'ledger.world.get'>,
): Promise<ReplyOf<'ledger.world.get'>> {
  const world = await repository.world(request.ref);
  if (world === null) throw new NotFoundError('world not found');
  return verifyStored(LEDGER_SERVICE, { kind: 'world', world }).world;
}

/**
 * One log entry.
 * @throws NotFoundError 'log entry not found'
 * @throws StoredObjectCorruptError when the row does not recompute to its entry hash
 */
export async function getLogEntry(
  repository: ReadsRepository,
  request: ParsedRequestOf<'ledger.log.entry'>,
): Promise<ReplyOf<'ledger.log.entry'>> {
  const entry = await repository.entry(request.index);
  if (entry === null) throw new NotFoundError('log entry not found');
  return verifyStored(LEDGER_SERVICE, { kind: 'entry', entry }).entry;
}

/**
 * A page of entries from `from`, limit clamped by pageLimit (at most PAGE_MAX); the page stops
 * at the first absent index and is empty when `from` is past the end.
 * @throws StoredObjectCorruptError when an entry of the page does not recompute to its hash
 */
export async function listLog(
  repository: ReadsRepository,
  request: ParsedRequestOf<'ledger.log.range'>,
): Promise<ReplyOf<'ledger.log.range'>> {
  const items = await repository.entriesFrom(request.from, pageLimit(request.limit));
  const page = denseRun(items, request.from, (e) => e.header.entryIndex);
  for (const entry of page) verifyStored(LEDGER_SERVICE, { kind: 'entry', entry });
  return { items: page };
}
