/**
 * Reads of the log and its worlds: `ledger.head`, `ledger.world.get`, `ledger.log.entry`,
 * `ledger.log.range` (world-spec §5.3, §5.4, §5.7, §5.8). Every row these reads serve is
 * re-hashed first (DESIGN.md §3): a world must recompute to its ref, an entry to its entry hash.
 */
import { Injectable } from '@nestjs/common';
import type { LogEntry } from '@world/canonical';
import {
  NotFoundError,
  StoredObjectCorruptError,
  type ParsedRequestOf,
  type ReplyOf,
} from '@world/contracts';
import { verifyStored } from '@world/runtime';
import { LEDGER_SERVICE } from '../constants.js';
import { denseRun, pageLimit } from './paging.js';
import { ReadsRepository } from './reads.repository.js';

/** `ledger.head`: the selected head. */
@Injectable()
export class GetHead {
  constructor(private readonly reads: ReadsRepository) {}

  /**
   * @returns its world ref, world row and entry index (all null before genesis)
   * @throws StoredObjectCorruptError when the head's world row does not recompute to its ref
   */
  async execute(): Promise<ReplyOf<'ledger.head'>> {
    const head = await this.reads.head();
    if (head === null) return { worldRef: null, world: null, entryIndex: null };
    verifyStored(LEDGER_SERVICE, { kind: 'world', world: head.world });
    return { worldRef: head.world.ref, world: head.world, entryIndex: head.entryIndex };
  }
}

/** `ledger.world.get`: one world row. */
@Injectable()
export class GetWorld {
  constructor(private readonly reads: ReadsRepository) {}

  /**
   * @throws NotFoundError 'world not found'
   * @throws StoredObjectCorruptError when the row does not recompute to its ref
   */
  async execute(
    request: ParsedRequestOf<'ledger.world.get'>,
  ): Promise<ReplyOf<'ledger.world.get'>> {
    const world = await this.reads.world(request.ref);
    if (world === null) throw new NotFoundError('world not found');
    return verifyStored(LEDGER_SERVICE, { kind: 'world', world }).world;
  }
}

/**
 * An entry re-hashed before it is served: refused when its fields do not hash to its entry hash
 * (verifyStored), or — when the caller asked for `flagged` — served with `corrupt` naming the
 * problem (logged all the same), never as valid.
 * @throws StoredObjectCorruptError for a mismatch without `flagged`
 */
function checked(entry: LogEntry, flagged: boolean): LogEntry & { corrupt?: string } {
  if (!flagged) return verifyStored(LEDGER_SERVICE, { kind: 'entry', entry }).entry;
  try {
    verifyStored(LEDGER_SERVICE, { kind: 'entry', entry });
    return entry;
  } catch (err) {
    if (!(err instanceof StoredObjectCorruptError)) throw err;
    return { ...entry, corrupt: err.problem };
  }
}

/** `ledger.log.entry`: one log entry. */
@Injectable()
export class GetLogEntry {
  constructor(private readonly reads: ReadsRepository) {}

  /**
   * @throws NotFoundError 'log entry not found'
   * @throws StoredObjectCorruptError when the row does not recompute to its entry hash (unless
   *   `flagged`: then served with `corrupt`)
   */
  async execute(
    request: ParsedRequestOf<'ledger.log.entry'>,
  ): Promise<ReplyOf<'ledger.log.entry'>> {
    const entry = await this.reads.entry(request.index);
    if (entry === null) throw new NotFoundError('log entry not found');
    return checked(entry, request.flagged === true);
  }
}

/** `ledger.log.range`: a page of entries. */
@Injectable()
export class ListLog {
  constructor(private readonly reads: ReadsRepository) {}

  /**
   * A page of entries from `from`, limit clamped by pageLimit (at most PAGE_MAX); the page stops
   * at the first absent index and is empty when `from` is past the end.
   * @throws StoredObjectCorruptError when an entry of the page does not recompute to its hash
   *   (unless `flagged`: then served with `corrupt`)
   */
  async execute(
    request: ParsedRequestOf<'ledger.log.range'>,
  ): Promise<ReplyOf<'ledger.log.range'>> {
    const items = await this.reads.entriesFrom(request.from, pageLimit(request.limit));
    const page = denseRun(items, request.from, (e) => e.header.entryIndex);
    return { items: page.map((entry) => checked(entry, request.flagged === true)) };
  }
}
