/**
 * @world/why's Provenance over the gateway's own RPC client, in the caller's read scope
 * (DESIGN.md §3; contracts `confinementOf`): the workbench walks exactly what `world why` walks,
 * and a session sees only what its own episode may read (anything else reads as not found).
 */
import { decodeBase64, type LogEntry, type World } from '@world/canonical';
import {
  NotFoundError,
  PAGE_MAX,
  READ_ALL,
  StoredObjectCorruptError,
  type ReadScope,
} from '@world/contracts';
import type { LocateQuery, Provenance, Receipt, StoredEntry, StoredObject } from '@world/why';
import type { ReadLog } from '../provenance/read-log.js';
import type { ReadObjects } from '../provenance/read-objects.js';
import type { ReadReceipt } from '../provenance/read-receipt.js';
import type { ReadWorlds } from '../provenance/read-worlds.js';

/** The `/v1` reads a walk goes through. */
export interface ProvenanceReads {
  worlds: ReadWorlds;
  log: ReadLog;
  objects: ReadObjects;
  receipts: ReadReceipt;
}

/** null for a NotFoundError, the value otherwise; other errors pass. */
async function found<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** The reads of a walk, as the REST routes serve them to this scope. */
export class ScopedProvenance implements Provenance {
  constructor(
    private readonly reads: ProvenanceReads,
    private readonly scope: ReadScope,
    private readonly pinOf: () => Promise<{ ref: string; version: string } | null>,
  ) {}

  async head(): Promise<World | null> {
    const ref = await found(this.reads.worlds.head());
    return ref === null ? null : this.world(ref);
  }

  world(ref: string): Promise<World | null> {
    return found(this.reads.worlds.world(ref)) as Promise<World | null>;
  }

  /** The entry, with `corrupt` when its fields do not hash to its entry hash (ReadLog.flaggedEntry). */
  entry(index: number): Promise<StoredEntry | null> {
    return found(this.reads.log.flaggedEntry(index)) as Promise<StoredEntry | null>;
  }

  async entries(from: number, limit: number): Promise<LogEntry[]> {
    const page = await this.reads.log.range(String(from), String(Math.min(limit, PAGE_MAX)));
    return page.items as LogEntry[];
  }

  async object(ref: string): Promise<StoredObject | null> {
    try {
      const view = await found(this.reads.objects.object(this.scope, ref, true));
      if (view === null) return this.hiddenOrAbsent(ref);
      return {
        hash: view.hash,
        semanticId: view.semanticId,
        provenance: view.provenance,
        payload: decodeBase64(view.payload ?? '', 'payload'),
      };
    } catch (err) {
      if (!(err instanceof StoredObjectCorruptError)) throw err;
      const envelope = await this.envelope(ref);
      if (envelope === null) return null;
      return { ...envelope, payload: Buffer.alloc(0), corrupt: err.message };
    }
  }

  /**
   * A miss of a confined scope: the object stored but another episode's (marked `hidden`, its
   * payload never read) or absent. The walk reaches such a ref only through the public skeleton
   * (a header's transitionRef, a world's stateRoot), so naming it stored tells nothing else.
   */
  private async hiddenOrAbsent(ref: string): Promise<StoredObject | null> {
    if (this.scope.kind === 'all') return null;
    const view = await found(this.reads.objects.object(READ_ALL, ref, false));
    if (view === null) return null;
    // Nothing of the envelope either: the session learns only that the ref is stored.
    return {
      hash: view.hash,
      semanticId: '',
      provenance: '',
      payload: Buffer.alloc(0),
      hidden: true,
    };
  }

  async envelope(ref: string): Promise<Omit<StoredObject, 'payload'> | null> {
    const view = await found(this.reads.objects.object(this.scope, ref, false));
    return view === null
      ? null
      : { hash: view.hash, semanticId: view.semanticId, provenance: view.provenance };
  }

  receipt(id: string): Promise<Receipt | null> {
    return found(this.reads.receipts.execute(this.scope, id)) as Promise<Receipt | null>;
  }

  async locate(query: LocateQuery): Promise<number | null> {
    const found_ = await found(
      this.reads.log.locate(
        this.scope,
        'invocationId' in query
          ? { invocation: query.invocationId }
          : { ref: query.ref, roles: query.roles.join(',') },
      ),
    );
    return found_ === null ? null : found_.entryIndex;
  }

  async brokerRecord(ref: string): Promise<boolean> {
    return (await found(this.reads.objects.brokerRecord(this.scope, ref))) !== null;
  }

  pin(): Promise<{ ref: string; version: string } | null> {
    return this.pinOf();
  }
}
