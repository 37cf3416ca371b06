import { Inject, Injectable } from '@nestjs/common';
import { READ_DEADLINE_MS, type ReplyOf } from '@world/contracts';
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
   * GET /v1/log?from=&limit= (world-spec §5.8): the page stops at the first absent index; `from`
   * past the end is an empty page. The whole page shares one read deadline.
   * @throws BadRequestError for a bad `from` or a non-integer `limit`
   */
  async range(from: QueryValue, limit: QueryValue): Promise<{ items: LogEntryView[] }> {
    const request = { from: parseFrom(from), limit: parsePageLimit(limit) };
    const reply = await this.rpc.request('ledger.log.range', request, {
      timeoutMs: READ_DEADLINE_MS,
    });
    return { items: reply.items.map(viewOf) };
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
