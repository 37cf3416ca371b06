/**
 * The provenance reads `why` and `log tail` make (@world/why's Provenance), over the gateway's `/v1` routes (world-spec
 * §5.3–§5.11). Objects come with their payload bytes exactly as stored: nothing here trusts a
 * payload — callers re-hash it.
 */
import { decodeBase64, type LogEntry, type World } from '@world/canonical';
import {
  EntryRefused,
  type LocateQuery,
  type Provenance,
  type Receipt,
  type StoredObject,
} from '@world/why';
import { PAGE_MAX } from '@world/contracts';
import { GatewayClient, GatewayHttpError } from './http.js';

/** The REST class of stored bytes that do not hash to their ref (DESIGN.md §3). */
const STORED_OBJECT_CORRUPT = 'StoredObjectCorrupt';

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

  /** @throws EntryRefused when World refuses the entry as corrupt (its fields are not served) */
  async entry(index: number): Promise<LogEntry | null> {
    try {
      return await this.client.find<LogEntry>(`/v1/log/${index}`);
    } catch (err) {
      if (err instanceof GatewayHttpError && err.errorClass === STORED_OBJECT_CORRUPT)
        throw new EntryRefused(index, err.detail);
      throw err;
    }
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

  async locate(query: LocateQuery): Promise<number | null> {
    const search =
      'invocationId' in query
        ? `invocation=${encodeURIComponent(query.invocationId)}`
        : `ref=${query.ref}&roles=${query.roles.join(',')}`;
    const found = await this.client.find<{ entryIndex: number }>(`/v1/locate?${search}`);
    return found === null ? null : found.entryIndex;
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

export {
  entryIndexOf,
  jsonOf,
  type LogEntry,
  type Provenance,
  type Receipt,
  type StoredObject,
  type World,
} from '@world/why';
