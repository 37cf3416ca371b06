/**
 * The provenance reads `why` and `log tail` make, over the gateway's `/v1` routes (world-spec
 * §5.3–§5.11). Objects come with their payload bytes exactly as stored: nothing here trusts a
 * payload — callers re-hash it.
 */
import { decodeBase64, type LogEntry, type Ref, type World } from '@world/canonical';
import { PAGE_MAX } from '@world/contracts';
import { GatewayClient, GatewayHttpError } from './http.js';

/** An object as stored: its envelope and its payload bytes. */
export interface StoredObject {
  hash: string;
  semanticId: string;
  provenance: string;
  payload: Buffer;
  /**
   * Set when World refused to serve the payload because it does not hash to the ref (REST
   * `StoredObjectCorrupt`, DESIGN.md §3): the gateway's message; `payload` is then empty.
   */
  corrupt?: string;
}

/** The REST class of stored bytes that do not hash to their ref (DESIGN.md §3). */
const STORED_OBJECT_CORRUPT = 'StoredObjectCorrupt';

/** A receipt of a `rest:` commit (world-spec §5.11). */
export interface Receipt {
  invocationId: string;
  state: 'not-started' | 'indeterminate' | 'resolved';
  resultRef?: string;
}

/** The reads a provenance walk makes; `null` = 404 NotFound. */
export interface Provenance {
  /** the selected head's world, null before genesis */
  head(): Promise<World | null>;
  world(ref: string): Promise<World | null>;
  entry(index: number): Promise<LogEntry | null>;
  /** a dense page from `from`, at most PAGE_MAX entries */
  entries(from: number, limit: number): Promise<LogEntry[]>;
  /** an object with its payload; a corrupt one comes back marked (StoredObject.corrupt) */
  object(ref: string): Promise<StoredObject | null>;
  /** an object's envelope only (no payload) */
  envelope(ref: string): Promise<Omit<StoredObject, 'payload'> | null>;
  receipt(id: string): Promise<Receipt | null>;
  /** true when the broker's own store holds this effect record (GET /v1/effects/{ref}) */
  brokerRecord(ref: string): Promise<boolean>;
  /** the planner's pin (GET /v1/health), null when unavailable */
  pin(): Promise<{ ref: string; version: string } | null>;
}

/** The Provenance reads over HTTP. */
export class HttpProvenance implements Provenance {
  constructor(private readonly client: GatewayClient) {}

  async head(): Promise<World | null> {
    let ref: string;
    try {
      ref = (await this.client.text('/v1/head')).trim();
    } catch (err) {
      if (err instanceof GatewayHttpError && err.status === 404) return null;
      throw err;
    }
    return this.world(ref);
  }

  world(ref: string): Promise<World | null> {
    return this.client.find<World>(`/v1/worlds/${ref}`);
  }

  entry(index: number): Promise<LogEntry | null> {
    return this.client.find<LogEntry>(`/v1/log/${index}`);
  }

  async entries(from: number, limit: number): Promise<LogEntry[]> {
    const page = await this.client.get<{ items: LogEntry[] }>(
      `/v1/log?from=${from}&limit=${Math.min(limit, PAGE_MAX)}`,
    );
    return page.items;
  }

  async object(ref: string): Promise<StoredObject | null> {
    let found;
    try {
      found = await this.client.find<{
        hash: string;
        semanticId: string;
        provenance: string;
        payload: string;
      }>(`/v1/objects/${ref}?payload=true`);
    } catch (err) {
      if (!(err instanceof GatewayHttpError) || err.errorClass !== STORED_OBJECT_CORRUPT) throw err;
      const envelope = await this.envelope(ref);
      if (envelope === null) return null;
      return { ...envelope, payload: Buffer.alloc(0), corrupt: err.detail };
    }
    if (found === null) return null;
    return {
      hash: found.hash,
      semanticId: found.semanticId,
      provenance: found.provenance,
      payload: decodeBase64(found.payload, 'payload'),
    };
  }

  envelope(ref: string): Promise<Omit<StoredObject, 'payload'> | null> {
    return this.client.find(`/v1/objects/${ref}`);
  }

  receipt(id: string): Promise<Receipt | null> {
    return this.client.find<Receipt>(`/v1/receipts/${encodeURIComponent(id)}`);
  }

  async brokerRecord(ref: string): Promise<boolean> {
    return (await this.client.find(`/v1/effects/${ref}`)) !== null;
  }

  async pin(): Promise<{ ref: string; version: string } | null> {
    try {
      const health = await this.client.get<{
        interpreter_ref: string;
        interpreter_version: string;
      }>('/v1/health');
      return { ref: health.interpreter_ref, version: health.interpreter_version };
    } catch {
      return null;
    }
  }
}

/** The index of a world's entry: the ledger keeps revision = entry index (DESIGN.md §7.2). */
export function entryIndexOf(world: Pick<World, 'revision'>): number {
  return world.revision;
}

/** A JSON payload, or undefined when the bytes are not JSON. */
export function jsonOf(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}

export type { LogEntry, Ref, World };
