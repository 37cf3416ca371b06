import { entryHash, GENESIS_PREV_ENTRY_HASH, refOf } from '@world/canonical';
import {
  BadRequestError,
  HTTP_WRITE_TIMEOUT_MS,
  LOG_STREAM_MARGIN_MS,
  LOG_STREAM_RUN_MS,
  NotFoundError,
  READ_DEADLINE_MS,
  type ParsedRequestOf,
} from '@world/contracts';
import type { RpcClient } from '@world/runtime';
import {
  CommittedEvents,
  LogCursor,
  STREAM_CONFLICT_MESSAGE,
  endFrame,
  entryFrame,
  errorFrame,
  parseStreamStart,
  runLogStream,
} from './log-stream.js';
import { ReadLog, type LogEntryView } from './read-log.js';

/** A hash-linked log of `n` entries, built with the real entry hash. */
function chain(n: number): LogEntryView[] {
  const out: LogEntryView[] = [];
  let prev = GENESIS_PREV_ENTRY_HASH;
  for (let i = 0; i < n; i++) {
    const header = {
      entryIndex: i,
      semanticsEpoch: 1,
      transitionFn: refOf('fn'),
      interpreter: refOf('interp'),
      prevEntryHash: prev,
      writtenBy: 'coordinator:mcp',
    };
    const transitionRef = refOf(`record ${i}`);
    const hash = entryHash(header, transitionRef);
    out.push({ header, entryHash: hash, transitionRef });
    prev = hash;
  }
  return out;
}

type Committed = ParsedRequestOf<'ledger.committed'>;

/**
 * The ledger's side of the stream as the contract states it: `ledger.log.range` pages a dense
 * log, `ledger.committed` is broadcast after an append — and may be lost or skip ahead.
 */
class LedgerLog {
  readonly entries: LogEntryView[] = [];
  readonly reads: number[] = [];
  private readonly listeners = new Set<(e: Committed) => void>();
  private readonly all = chain(700);
  failNextRead = false;

  append(count: number, announce: 'each' | 'last' | 'none'): void {
    const added = this.all.slice(this.entries.length, this.entries.length + count);
    this.entries.push(...added);
    const announced = announce === 'each' ? added : announce === 'last' ? added.slice(-1) : [];
    for (const e of announced) {
      for (const l of this.listeners)
        l({
          entryIndex: e.header.entryIndex,
          entryHash: e.entryHash,
          worldRef: refOf(`world ${e.header.entryIndex}`),
          writtenBy: e.header.writtenBy,
          invocationId: null,
        });
    }
  }

  readonly rpc = {
    request: async (subject: string, data: { from: number; limit: number }) => {
      expect(subject).toBe('ledger.log.range');
      this.reads.push(data.from);
      if (this.failNextRead) {
        this.failNextRead = false;
        throw new NotFoundError('log entry not found');
      }
      return { items: this.entries.slice(data.from, data.from + data.limit) };
    },
    subscribe: (subject: string, listener: (e: Committed) => void) => {
      expect(subject).toBe('ledger.committed');
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    },
    listenerCount: () => this.listeners.size,
  };
}

/** A sink that records frames and can wait for a count of them. */
function recorder() {
  const frames: string[] = [];
  const waiters: Array<[number, () => void]> = [];
  return {
    frames,
    sink: {
      write(frame: string) {
        frames.push(frame);
        for (const [n, resolve] of [...waiters]) if (frames.length >= n) resolve();
        return true;
      },
      drained: () => Promise.resolve(),
    },
    until(n: number): Promise<void> {
      if (frames.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push([n, resolve]));
    },
  };
}

const indexOf = (frame: string) => Number(/^id: (\d+)\n/.exec(frame)?.[1]);

describe('LOG_STREAM_RUN_MS (world-internals §7.4)', () => {
  it('is the write timeout minus the read deadline minus the margin: 18 s', () => {
    expect(LOG_STREAM_RUN_MS).toBe(HTTP_WRITE_TIMEOUT_MS - READ_DEADLINE_MS - LOG_STREAM_MARGIN_MS);
    expect(LOG_STREAM_RUN_MS).toBe(18_000);
  });
});

describe('parseStreamStart (world-spec §5.8, world-internals §7.4 resume cursor)', () => {
  const rows: Array<[string, unknown, string | undefined, number | string]> = [
    ['§5.8 from absent → 0', undefined, undefined, 0],
    ['§5.8 from=7', '7', undefined, 7],
    ['§7.4 Last-Event-ID 4 resumes at 5', undefined, '4', 5],
    ['§7.4 both agreeing', '5', '4', 5],
    ['§7.4 both disagreeing → 400', '9', '4', STREAM_CONFLICT_MESSAGE],
    ['§5.8 from=-1 → 400', '-1', undefined, 'from must be a non-negative integer'],
    ['§5.8 from=abc → 400', 'abc', undefined, 'from must be a non-negative integer'],
    ['§7.4 Last-Event-ID x → 400', undefined, 'x', 'Last-Event-ID must be a non-negative integer'],
    ['§7.4 empty Last-Event-ID is absent', '3', '', 3],
  ];
  it.each(rows)('%s', (_row, from, lastEventId, expected) => {
    if (typeof expected === 'number') expect(parseStreamStart(from, lastEventId)).toBe(expected);
    else expect(() => parseStreamStart(from, lastEventId)).toThrow(new BadRequestError(expected));
  });
});

describe('stream frames', () => {
  it('frames an entry with its index as the SSE id and the GET /v1/log/{i} body as data', () => {
    const [entry] = chain(1);
    expect(entryFrame(entry!)).toBe(`id: 0\nevent: entry\ndata: ${JSON.stringify(entry)}\n\n`);
  });
  it('ends a run with the index to resume from', () => {
    expect(endFrame(12)).toBe('event: end\ndata: {"next":12}\n\n');
  });
  it('ends a failed run with the REST error envelope', () => {
    expect(errorFrame(new NotFoundError('log entry not found'))).toBe(
      'event: error\ndata: {"error":{"class":"NotFound","message":"log entry not found"}}\n\n',
    );
    expect(errorFrame(new Error('secret cause'))).toBe(
      'event: error\ndata: {"error":{"class":"Internal","message":"internal store failure"}}\n\n',
    );
  });
});

describe('LogCursor', () => {
  it('hands out each entry once, in order, across pages', async () => {
    const log = chain(7);
    const cursor = new LogCursor(2, async (from) => log.slice(from, from + 2), 2);
    expect((await cursor.drain()).map((e) => e.header.entryIndex)).toEqual([2, 3, 4, 5, 6]);
    expect(await cursor.drain()).toEqual([]);
    expect(cursor.next).toBe(7);
  });
  it('keeps only the dense run that starts at its position', async () => {
    const log = chain(6);
    const cursor = new LogCursor(1, async () => [log[1]!, log[2]!, log[4]!], 10);
    expect((await cursor.drain()).map((e) => e.header.entryIndex)).toEqual([1, 2]);
    expect(cursor.next).toBe(3);
  });
  it('stays where it was when a read fails', async () => {
    const cursor = new LogCursor(3, async () => {
      throw new Error('down');
    });
    await expect(cursor.drain()).rejects.toThrow('down');
    expect(cursor.next).toBe(3);
  });
});

describe('runLogStream', () => {
  const run = (
    ledger: LedgerLog,
    start: number,
    signal: AbortSignal,
    sink: ReturnType<typeof recorder>['sink'],
    options: { runMs?: number; resyncMs?: number } = {},
  ) =>
    runLogStream({
      log: new ReadLog(ledger.rpc as unknown as RpcClient),
      events: new CommittedEvents(ledger.rpc as unknown as RpcClient),
      start,
      signal,
      sink,
      runMs: options.runMs ?? 60_000,
      resyncMs: options.resyncMs ?? 60_000,
    });

  it('sends the backlog from `from`, then each announced entry exactly once, in order', async () => {
    const ledger = new LedgerLog();
    ledger.append(3, 'each');
    const out = recorder();
    const stop = new AbortController();
    const done = run(ledger, 1, stop.signal, out.sink);
    await out.until(2);
    ledger.append(2, 'each');
    await out.until(4);
    ledger.append(1, 'each');
    await out.until(5);
    stop.abort();
    expect(await done).toBe(6);
    expect(out.frames.map(indexOf)).toEqual([1, 2, 3, 4, 5]);
  });

  it('fills a gap from the log when an event skips ahead', async () => {
    const ledger = new LedgerLog();
    ledger.append(1, 'each');
    const out = recorder();
    const stop = new AbortController();
    const done = run(ledger, 0, stop.signal, out.sink);
    await out.until(1);
    ledger.append(4, 'last');
    await out.until(5);
    stop.abort();
    await done;
    expect(out.frames.map(indexOf)).toEqual([0, 1, 2, 3, 4]);
  });

  it('finds entries whose event was lost at the next resync', async () => {
    const ledger = new LedgerLog();
    const out = recorder();
    const stop = new AbortController();
    const done = run(ledger, 0, stop.signal, out.sink, { resyncMs: 5 });
    ledger.append(2, 'none');
    await out.until(2);
    stop.abort();
    await done;
    expect(out.frames.map(indexOf)).toEqual([0, 1]);
  });

  it('pages a backlog longer than one page without a duplicate', async () => {
    const ledger = new LedgerLog();
    ledger.append(650, 'none');
    const out = recorder();
    const stop = new AbortController();
    const done = run(ledger, 0, stop.signal, out.sink);
    await out.until(650);
    stop.abort();
    await done;
    expect(out.frames.map(indexOf)).toEqual(Array.from({ length: 650 }, (_, i) => i));
    expect(ledger.reads.slice(0, 2)).toEqual([0, 500]);
  });

  it('ends a run that reached its length with an end frame naming the next index', async () => {
    const ledger = new LedgerLog();
    ledger.append(2, 'each');
    const out = recorder();
    const next = await run(ledger, 0, new AbortController().signal, out.sink, {
      runMs: 20,
      resyncMs: 5,
    });
    expect(next).toBe(2);
    expect(out.frames.map((f) => f.split('\n')[0])).toEqual(['id: 0', 'id: 1', 'event: end']);
    expect(out.frames.at(-1)).toBe(endFrame(2));
  });

  it('ends with an error frame when a read fails', async () => {
    const ledger = new LedgerLog();
    ledger.failNextRead = true;
    const out = recorder();
    const next = await run(ledger, 0, new AbortController().signal, out.sink);
    expect(next).toBe(0);
    expect(out.frames).toEqual([errorFrame(new NotFoundError('log entry not found'))]);
  });

  it('writes nothing more once the client has left', async () => {
    const ledger = new LedgerLog();
    const out = recorder();
    const stop = new AbortController();
    const done = run(ledger, 0, stop.signal, out.sink);
    stop.abort();
    await done;
    ledger.append(1, 'each');
    expect(out.frames).toEqual([]);
  });
});

describe('CommittedEvents', () => {
  it('shares one subscription among listeners and drops it on close', () => {
    const ledger = new LedgerLog();
    const events = new CommittedEvents(ledger.rpc as unknown as RpcClient);
    const seen: number[][] = [[], []];
    const off0 = events.listen((e) => seen[0]!.push(e.entryIndex));
    events.listen((e) => seen[1]!.push(e.entryIndex));
    expect(ledger.rpc.listenerCount()).toBe(1);
    ledger.append(1, 'each');
    off0();
    ledger.append(1, 'each');
    expect(seen).toEqual([[0], [0, 1]]);
    events.close();
    expect(ledger.rpc.listenerCount()).toBe(0);
  });
});
