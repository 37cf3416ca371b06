import { Inject, Injectable } from '@nestjs/common';
import { isRef } from '@world/canonical';
import {
  BadRequestError,
  NotFoundError,
  READ_DEADLINE_MS,
  REF_ROLES,
  type ReadScope,
  type RefRole,
  type ReplyOf,
} from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { NOT_FOUND, orNotFound } from './not-found.js';
import { parseFrom, parseLogIndex, parsePageLimit, type QueryValue } from './paging.js';

/** A log entry as GET /v1/log serves it (world-spec §2.11). */
export type LogEntryView = ReplyOf<'ledger.log.entry'>;

/** The ledger's log entries as `/v1/log` serves them (also the live tails' pages). */
@Injectable()
export class ReadLog {
  constructor(@Inject(RPC) private readonly rpc: Pick<RpcClient, 'request'>) {}

  /**
   * GET /v1/log/{index} (world-spec §5.7).
   * @throws BadRequestError `log index must be a non-negative integer`; NotFoundError `log entry not found`
   */
  async entry(indexText: QueryValue): Promise<LogEntryView> {
    const index = parseLogIndex(indexText);
    const entry = await orNotFound(
      this.rpc.request('ledger.log.entry', { index }, { timeoutMs: READ_DEADLINE_MS }),
      NOT_FOUND.logEntry,
    );
    return viewOf(entry);
  }

  /**
   * One entry for the workbench's pages and walks: an entry whose fields do not hash to its entry
   * hash comes with `corrupt` (the problem) to be shown ✗ — never as valid (DESIGN.md §3).
   * @throws NotFoundError `log entry not found`
   */
  async flaggedEntry(index: number): Promise<LogEntryView & { corrupt?: string }> {
    const entry = await orNotFound(
      this.rpc.request(
        'ledger.log.entry',
        { index, flagged: true },
        { timeoutMs: READ_DEADLINE_MS },
      ),
      NOT_FOUND.logEntry,
    );
    const view = viewOf(entry);
    return entry.corrupt === undefined ? view : { ...view, corrupt: entry.corrupt };
  }

  /**
   * GET /v1/log?from=&limit= (world-spec §5.8): the page stops at the first absent index; `from`
   * past the end is an empty page. The whole page shares one read deadline. With `flagged` (the
   * workbench's live stream; never /v1) an entry whose fields do not hash to its entry hash is
   * served with `corrupt` instead of failing the page, so it can be shown ✗, never as valid.
   * @throws BadRequestError for a bad `from` or a non-integer `limit`; StoredObjectCorruptError
   *   for such an entry without `flagged`
   */
  async range(
    from: QueryValue,
    limit: QueryValue,
    flagged = false,
  ): Promise<{ items: Array<LogEntryView & { corrupt?: string }> }> {
    const request = {
      from: parseFrom(from),
      limit: parsePageLimit(limit),
      ...(flagged && { flagged }),
    };
    const reply = await this.rpc.request('ledger.log.range', request, {
      timeoutMs: READ_DEADLINE_MS,
    });
    return {
      items: reply.items.map((e) =>
        e.corrupt === undefined ? viewOf(e) : { ...viewOf(e), corrupt: e.corrupt },
      ),
    };
  }

  /**
   * GET /v1/locate?ref=<ref>&roles=<role,…> or ?invocation=<id>: the index of the newest entry
   * that names the ref in one of the roles (contracts REF_ROLES), or whose record carries the
   * invocation id — the lookup of `world why` (world-spec §7.3), exact at any depth. A session
   * finds only entries whose record it may read (DESIGN.md §3).
   * @throws BadRequestError for a malformed ref, role list or id; NotFoundError `log entry not found`
   */
  async locate(
    scope: ReadScope,
    query: { ref?: QueryValue; roles?: QueryValue; invocation?: QueryValue },
  ): Promise<{ entryIndex: number }> {
    const { ref, roles, invocation } = query;
    let request:
      | { scope: ReadScope; ref: string; roles: RefRole[] }
      | { scope: ReadScope; invocationId: string };
    if (typeof invocation === 'string' && invocation !== '' && ref === undefined) {
      request = { scope, invocationId: invocation };
    } else if (typeof ref === 'string' && isRef(ref) && invocation === undefined) {
      const list = typeof roles === 'string' ? roles.split(',') : [];
      if (
        list.length === 0 ||
        !list.every((r): r is RefRole => (REF_ROLES as readonly string[]).includes(r))
      )
        throw new BadRequestError(
          `roles must be a comma-separated list of ${REF_ROLES.join(', ')}`,
        );
      request = { scope, ref, roles: list };
    } else {
      throw new BadRequestError('give ref=<sha256 ref> and roles=<roles>, or invocation=<id>');
    }
    const reply = await this.rpc.request('ledger.log.locate', request, {
      timeoutMs: READ_DEADLINE_MS,
    });
    if (reply.entryIndex === null) throw new NotFoundError(NOT_FOUND.logEntry);
    return { entryIndex: reply.entryIndex };
  }
}

/** The frozen entry shape, field by field, so nothing else a service adds leaks out. */
function viewOf(entry: LogEntryView): LogEntryView {
  const h = entry.header;
  return {
    header: {
      entryIndex: h.entryIndex,
      semanticsEpoch: h.semanticsEpoch,
      transitionFn: h.transitionFn,
      interpreter: h.interpreter,
      prevEntryHash: h.prevEntryHash,
      writtenBy: h.writtenBy,
    },
    entryHash: entry.entryHash,
    transitionRef: entry.transitionRef,
  };
}
