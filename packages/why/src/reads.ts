/**
 * The reads a provenance walk makes (world-spec §5.3–§5.11), as an interface: the CLI reads over
 * the gateway's `/v1` routes, the gateway's workbench in-process over its RPC client, in the
 * caller's read scope. Objects come with their payload bytes exactly as stored: nothing here
 * trusts a payload — callers re-hash it.
 */
import type { LogEntry, World } from '@world/canonical';
import { SEMANTIC_IDS, type RefRole } from '@world/contracts';

/** An object as stored: its envelope and its payload bytes. */
export interface StoredObject {
  hash: string;
  semanticId: string;
  provenance: string;
  payload: Buffer;
  /**
   * Set when World refused to serve the payload because it does not hash to the ref (REST
   * `StoredObjectCorrupt`, DESIGN.md §3): World's message; `payload` is then empty.
   */
  corrupt?: string;
  /**
   * Set when the object is stored but not this caller's to read (another episode's, DESIGN.md
   * §3): `payload` is then empty, and the walk names it as a stop, neither ✓ nor ✗.
   */
  hidden?: true;
}

/**
 * A log entry as read. `corrupt` is set when its fields do not hash to its stored entry hash and
 * the reader was given them anyway, to show them ✗ (World's problem text; DESIGN.md §3).
 */
export type StoredEntry = LogEntry & { corrupt?: string };

/**
 * World refused to serve log entry `index` because its fields do not hash to its entry hash
 * (REST `StoredObjectCorrupt`): the walk names it as a broken link and stops there.
 */
export class EntryRefused extends Error {
  constructor(
    readonly index: number,
    readonly problem: string,
  ) {
    super(`World refuses to serve log entry ${index} as valid: ${problem}`);
    this.name = 'EntryRefused';
  }
}

/** A receipt of a `rest:` commit (world-spec §5.11). */
export interface Receipt {
  invocationId: string;
  state: 'not-started' | 'indeterminate' | 'resolved';
  resultRef?: string;
}

/** What Provenance.locate looks up: a ref in some roles, or an invocation id. */
export type LocateQuery = { ref: string; roles: readonly RefRole[] } | { invocationId: string };

/** The reads a provenance walk makes; `null` = not found (or not visible to the caller). */
export interface Provenance {
  /** the selected head's world, null before genesis */
  head(): Promise<World | null>;
  world(ref: string): Promise<World | null>;
  /**
   * an entry; one whose fields do not hash to its entry hash comes marked (StoredEntry.corrupt)
   * or, when the reader cannot have its fields, rejects with EntryRefused
   */
  entry(index: number): Promise<StoredEntry | null>;
  /** a dense page from `from`, at most PAGE_MAX entries */
  entries(from: number, limit: number): Promise<LogEntry[]>;
  /** an object with its payload; a corrupt one comes back marked (StoredObject.corrupt) */
  object(ref: string): Promise<StoredObject | null>;
  /** an object's envelope only (no payload) */
  envelope(ref: string): Promise<Omit<StoredObject, 'payload'> | null>;
  receipt(id: string): Promise<Receipt | null>;
  /**
   * the index of the newest entry naming the ref in one of the roles, or whose record carries the
   * invocation id, among the entries whose record the caller may read (GET /v1/locate)
   */
  locate(query: LocateQuery): Promise<number | null>;
  /** true when the broker's own store holds this effect record (GET /v1/effects/{ref}) */
  brokerRecord(ref: string): Promise<boolean>;
  /** the planner's pin (GET /v1/health), null when unavailable */
  pin(): Promise<{ ref: string; version: string } | null>;
}

/** The index of a world's entry: the ledger keeps revision = entry index (DESIGN.md §7.2). */
export function entryIndexOf(world: Pick<World, 'revision'>): number {
  return world.revision;
}

/** Each payload's parsed JSON (or undefined), kept while the payload itself is. */
const PARSED = new WeakMap<Buffer, unknown>();

/**
 * A JSON payload, or undefined when the bytes are not JSON. A walk and the page beside it read the
 * same object once (one Buffer per read) and each look at its JSON: the bytes are decoded and
 * parsed once per Buffer, and every caller gets the same value — read it, never change it.
 * Payload Buffers are never written after they are read (a tampered object is a new read).
 */
export function jsonOf(payload: Buffer): unknown {
  if (PARSED.has(payload)) return PARSED.get(payload);
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    value = undefined;
  }
  PARSED.set(payload, value);
  return value;
}

/** The record semantic ids of an invocation (world-spec §2.13, §2.14). */
export const INVOCATION_RECORD_IDS: readonly string[] = [
  SEMANTIC_IDS.invocationRecord,
  'world/invocation-record/v1',
];

/** An effect record's status word, by the three-arm law (world-spec §2.8, §4.2). */
export function effectStatus(record: {
  allowed?: unknown;
  failed?: unknown;
}): 'ok' | 'failed' | 'denied' {
  if (record.allowed !== true) return 'denied';
  return record.failed === true ? 'failed' : 'ok';
}

export type { LogEntry, World };
