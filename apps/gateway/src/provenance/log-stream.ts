/**
 * The live log tail, `GET /v1/log/stream?from=N`: a Server-Sent Events stream that first sends the
 * entries from N to the head, then each new entry as the ledger announces it (`ledger.committed`),
 * each exactly once and in index order, for one bounded run (world-internals §7.4); the client
 * reconnects from its last index (`from`, or the standard `Last-Event-ID` header).
 */
import {
  BadRequestError,
  LOG_STREAM_RESYNC_MS,
  LOG_STREAM_RUN_MS,
  PAGE_MAX,
  type ParsedRequestOf,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import { asWorldError, restErrorOf } from '../errors/error-map.js';
import type { LogEntryView } from './read-log.js';
import type { ReadLog } from './read-log.js';
import { parseFrom, parseNonNegative, type QueryValue } from './paging.js';

/**
 * The 400 text of a `from` that disagrees with `Last-Event-ID`.
 * @internal exported for log-stream.spec.ts
 */
export const STREAM_CONFLICT_MESSAGE = 'from and Last-Event-ID name different positions';

/**
 * Where a stream starts: `from` (default 0, world-spec §5.8), or the entry after `Last-Event-ID`
 * (the SSE resume header, world-internals §7.4); both given must agree.
 * @throws BadRequestError `from must be a non-negative integer`,
 *   `Last-Event-ID must be a non-negative integer`, or STREAM_CONFLICT_MESSAGE
 */
export function parseStreamStart(from: QueryValue, lastEventId: string | undefined): number {
  const resume =
    lastEventId === undefined || lastEventId === ''
      ? undefined
      : parseNonNegative(lastEventId, 'Last-Event-ID must be a non-negative integer') + 1;
  if (from === undefined) return resume ?? 0;
  const start = parseFrom(from);
  if (resume !== undefined && resume !== start) throw new BadRequestError(STREAM_CONFLICT_MESSAGE);
  return start;
}

/**
 * The SSE frame of one entry: `id` is its index, `data` the entry exactly as GET /v1/log/{i} serves it.
 * @internal exported for log-stream.spec.ts
 */
export function entryFrame(entry: LogEntryView): string {
  return `id: ${entry.header.entryIndex}\nevent: entry\ndata: ${JSON.stringify(entry)}\n\n`;
}

/**
 * The last frame of a run that ended on time: where the client resumes.
 * @internal exported for log-stream.spec.ts
 */
export function endFrame(next: number): string {
  return `event: end\ndata: ${JSON.stringify({ next })}\n\n`;
}

/**
 * The last frame of a run that failed: the REST envelope of the error (world-spec §5.1).
 * @internal exported for log-stream.spec.ts
 */
export function errorFrame(err: unknown): string {
  return `event: error\ndata: ${JSON.stringify(restErrorOf(asWorldError(err)).body)}\n\n`;
}

/**
 * A reading position in the log that hands out every entry once, in order: it reads from its
 * next index up to the current end (page after page), keeps only the dense run that starts at
 * that index, and moves past what it handed out. An event that skips ahead therefore never
 * skips an entry: the gap is read from the log.
 */
export class LogCursor {
  constructor(
    private position: number,
    private readonly read: (from: number) => Promise<LogEntryView[]>,
    private readonly pageSize: number = PAGE_MAX,
  ) {}

  /** The index of the next entry to hand out. */
  get next(): number {
    return this.position;
  }

  /**
   * Every entry from `next` to the current end, once.
   * @throws the read's errors (the position stays where it was)
   */
  async drain(): Promise<LogEntryView[]> {
    const out: LogEntryView[] = [];
    for (;;) {
      const page = await this.read(this.position);
      let taken = 0;
      for (const entry of page) {
        if (entry.header.entryIndex !== this.position) break;
        out.push(entry);
        this.position += 1;
        taken += 1;
      }
      if (taken < this.pageSize) return out;
    }
  }
}

type CommittedEvent = ParsedRequestOf<'ledger.committed'>;

/**
 * One subscription to `ledger.committed` on the gateway's client, shared by every open stream
 * (the event is broadcast: every gateway replica sees every commit).
 */
export class CommittedEvents {
  private readonly listeners = new Set<(event: CommittedEvent) => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly rpc: Pick<RpcClient, 'subscribe'>) {}

  /** Calls `listener` for each event until the returned function is called. */
  listen(listener: (event: CommittedEvent) => void): () => void {
    this.unsubscribe ??= this.rpc.subscribe('ledger.committed', (event) => {
      for (const l of [...this.listeners]) l(event);
    });
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Drops the subscription (gateway shutdown). */
  close(): void {
    this.listeners.clear();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}

/** Where a stream writes: the HTTP response, seen through what the run needs. */
interface StreamSink {
  /** writes one frame; false when the socket's buffer is full */
  write(frame: string): boolean;
  /** resolves when the buffer has drained (or the client left) */
  drained(): Promise<void>;
}

/** What one run needs. */
export interface StreamRun {
  /** the log's pages */
  log: Pick<ReadLog, 'range'>;
  events: CommittedEvents;
  start: number;
  sink: StreamSink;
  /** aborted when the client leaves or the gateway stops */
  signal: AbortSignal;
  runMs?: number;
  resyncMs?: number;
  /** told about a read that ended the run early */
  onError?: (err: unknown) => void;
}

/**
 * Runs one stream: drains the log from `start`, then waits for an announced entry at or past the
 * cursor (or the resync period, since events are at most once) and drains again, until the run
 * length ends (then an `end` frame naming the next index), the client leaves, or a read fails
 * (then an `error` frame). Resolves with the next index; never throws.
 */
export async function runLogStream(run: StreamRun): Promise<number> {
  const runMs = run.runMs ?? LOG_STREAM_RUN_MS;
  const resyncMs = run.resyncMs ?? LOG_STREAM_RESYNC_MS;
  const ends = Date.now() + runMs;
  const cursor = new LogCursor(run.start, async (from) => {
    const page = await run.log.range(String(from), String(PAGE_MAX));
    return page.items;
  });
  let wake: (() => void) | undefined;
  // Set by the event listener between drains: an entry at or past the cursor was committed.
  const seen = { announced: false };
  const stopListening = run.events.listen((event) => {
    if (event.entryIndex < cursor.next) return;
    seen.announced = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  run.signal.addEventListener('abort', onAbort);
  try {
    while (!run.signal.aborted) {
      seen.announced = false;
      for (const entry of await cursor.drain()) {
        if (run.signal.aborted) return cursor.next;
        if (!run.sink.write(entryFrame(entry))) await run.sink.drained();
      }
      const left = ends - Date.now();
      if (left <= 0) break;
      if (!seen.announced && !run.signal.aborted) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(resyncMs, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    }
    if (!run.signal.aborted) run.sink.write(endFrame(cursor.next));
  } catch (err) {
    run.onError?.(err);
    if (!run.signal.aborted) run.sink.write(errorFrame(err));
  } finally {
    stopListening();
    run.signal.removeEventListener('abort', onAbort);
  }
  return cursor.next;
}
