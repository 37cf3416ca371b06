/**
 * One page's reads, each made once: the Entry page walks the invocation (@world/why) and shows the
 * same objects beside the walk, concurrently, so both ask for the record, input, plan, output and
 * effect objects. Each distinct read is sent once and every asker shares its answer (or its error),
 * so the page costs one round trip per object, not two. Kept for one page only: a later page reads
 * afresh (the log and the objects are immutable, but a tampered row must show on the next load).
 */
import type {
  LocateQuery,
  LogEntry,
  Provenance,
  Receipt,
  StoredEntry,
  StoredObject,
  World,
} from '@world/why';

/** A Provenance over `reads` that sends each distinct read once (see the file doc). */
export class PageReads implements Provenance {
  private readonly sent = new Map<string, Promise<unknown>>();

  constructor(private readonly reads: Provenance) {}

  /** The answer of read `key`, sending it through `read` the first time. */
  private once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let answer = this.sent.get(key) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = read();
      this.sent.set(key, answer);
    }
    return answer;
  }

  head(): Promise<World | null> {
    return this.once('head', () => this.reads.head());
  }

  world(ref: string): Promise<World | null> {
    return this.once(`world ${ref}`, () => this.reads.world(ref));
  }

  entry(index: number): Promise<StoredEntry | null> {
    return this.once(`entry ${index}`, () => this.reads.entry(index));
  }

  entries(from: number, limit: number): Promise<LogEntry[]> {
    return this.once(`entries ${from} ${limit}`, () => this.reads.entries(from, limit));
  }

  object(ref: string): Promise<StoredObject | null> {
    return this.once(`object ${ref}`, () => this.reads.object(ref));
  }

  envelope(ref: string): Promise<Omit<StoredObject, 'payload'> | null> {
    return this.once(`envelope ${ref}`, () => this.reads.envelope(ref));
  }

  receipt(id: string): Promise<Receipt | null> {
    return this.once(`receipt ${id}`, () => this.reads.receipt(id));
  }

  locate(query: LocateQuery): Promise<number | null> {
    return this.once(`locate ${JSON.stringify(query)}`, () => this.reads.locate(query));
  }

  brokerRecord(ref: string): Promise<boolean> {
    return this.once(`broker ${ref}`, () => this.reads.brokerRecord(ref));
  }

  pin(): Promise<{ ref: string; version: string } | null> {
    return this.once('pin', () => this.reads.pin());
  }
}
