/**
 * A small ledger in memory, built with the real canonical encoding, entry hash and world ref the
 * way the planner, broker and ledger build theirs (world-spec §2.11–§2.14, §9.1), behind the
 * `Provenance` reads `why` and `log tail` make over HTTP. Unit tests tamper with its stored bytes.
 */
import {
  entryHash,
  GENESIS_PREV_ENTRY_HASH,
  makeJsonObject,
  worldRef,
  type LogEntry,
  type Ref,
  type World,
  type WorldObject,
} from '@world/canonical';
import { SEMANTIC_IDS } from '@world/contracts';
import type { LocateQuery, Provenance, Receipt, StoredEntry, StoredObject } from '../src/reads.js';
import { EntryRefused, jsonOf } from '../src/reads.js';

const INTERPRETER = makeJsonObject(SEMANTIC_IDS.interpreter, 'planner', {
  name: '@world/planner',
  version: '0.1.0',
  node: 'v20',
});
const TRANSITION_FN = makeJsonObject(SEMANTIC_IDS.transitionSource, 'planner', {
  tool: 'ailang-read',
});
export const PIN = { ref: INTERPRETER.hash, version: '@world/planner 0.1.0 (node v20)' };

/** What one committed invocation left behind. */
export interface Invocation {
  index: number;
  invocationId: string;
  input: WorldObject;
  plan: WorldObject;
  output: WorldObject;
  record: WorldObject;
  effectRecord?: WorldObject;
  request?: WorldObject;
  result?: WorldObject;
  entry: LogEntry;
  world: World;
  /** the output's exact bytes, as `call --json-out` prints them (minus the newline) */
  outputBytes: Buffer;
}

/** How the fixture's invocation ends (world-spec §4.4 (A), (B), (D)). */
export type Outcome = 'ok' | 'refused' | 'denied';

export class MemoryLedger implements Provenance {
  readonly objects = new Map<string, StoredObject>();
  readonly entries_: StoredEntry[] = [];
  /** entries World refuses to serve (REST StoredObjectCorrupt), with its problem text */
  readonly refusedEntries = new Map<number, string>();
  readonly worlds = new Map<string, World>();
  readonly receipts = new Map<string, Receipt>();
  /** the effect records World's broker holds (GET /v1/effects) */
  readonly brokerRecords = new Set<string>();
  /** refs World refuses to serve, with the gateway's StoredObjectCorrupt message */
  readonly refused = new Map<string, string>();
  /** refs stored but not the caller's to read (another episode's objects, DESIGN.md §3) */
  readonly hidden = new Set<string>();
  headRef: string | null = null;
  /** object reads, for scan-cost assertions */
  reads = 0;

  constructor() {
    const genesis = makeJsonObject(SEMANTIC_IDS.genesis, 'ledger', { world: 'genesis' });
    this.put(genesis);
    const header = {
      entryIndex: 0,
      semanticsEpoch: 1,
      transitionFn: genesis.hash,
      interpreter: genesis.hash,
      prevEntryHash: GENESIS_PREV_ENTRY_HASH,
      writtenBy: 'ledger:genesis',
    };
    this.append(header, genesis.hash, genesis.hash);
  }

  put(object: WorldObject): void {
    this.objects.set(object.hash, {
      hash: object.hash,
      semanticId: object.semanticId,
      provenance: object.provenance,
      payload: Buffer.from(object.payload),
    });
  }

  /** Replaces an object's stored bytes (what an UPDATE of ledger.objects.payload does). */
  tamper(ref: string, payload: string): void {
    const o = this.objects.get(ref)!;
    this.objects.set(ref, { ...o, payload: Buffer.from(payload, 'utf8') });
  }

  private append(
    header: LogEntry['header'],
    transitionRef: Ref,
    stateRoot: Ref,
  ): { entry: LogEntry; world: World } {
    const entry: LogEntry = { header, entryHash: entryHash(header, transitionRef), transitionRef };
    this.entries_.push(entry);
    const shape = { revision: header.entryIndex, stateRoot, logHead: entry.entryHash };
    const world: World = { ref: worldRef(shape), ...shape };
    this.worlds.set(world.ref, world);
    this.headRef = world.ref;
    return { entry, world };
  }

  /** Commits one MCP tool call of `ailang-read` ending as `outcome`. */
  invoke(
    path: string,
    outcome: Outcome = 'ok',
    taskId = `task${this.entries_.length}`,
  ): Invocation {
    const writtenBy = 'coordinator:mcp';
    const invocationId = `mcp:ep1:${taskId}`;
    const index = this.entries_.length;
    const input = makeJsonObject(SEMANTIC_IDS.invocationInput, writtenBy, { path });
    const effect = {
      id: 'e1',
      effect: 'Workspace.Read',
      scope: 'worktree',
      cost: 1,
      payload: { path },
    };
    const plan =
      outcome === 'refused'
        ? makeJsonObject(SEMANTIC_IDS.effectPlan, writtenBy, {
            plan: 'world/effect-plan/v1',
            effects: [],
            finish: false,
            result: { ok: false, refused: `path "${path}" refused` },
          })
        : makeJsonObject(SEMANTIC_IDS.effectPlan, writtenBy, {
            plan: 'world/effect-plan/v1',
            effects: [effect],
            finish: false,
            result: null,
          });
    let request: WorldObject | undefined;
    let result: WorldObject | undefined;
    let effectRecord: WorldObject | undefined;
    let body: Record<string, unknown>;
    if (outcome === 'refused') {
      body = {
        ok: false,
        refused: `path "${path}" refused`,
        world: { effects: [], plan: plan.hash },
      };
    } else {
      request = makeJsonObject(SEMANTIC_IDS.effectRequest, 'host/broker', {
        effect: effect.effect,
        scope: effect.scope,
        cost: 1,
        now: 1_800_000_000_000 + index,
        payload: { path },
      });
      const before = 50 - index;
      if (outcome === 'ok') {
        result = makeJsonObject(SEMANTIC_IDS.effectResult, 'host/broker', {
          ok: true,
          content: `text of ${path}`,
        });
        effectRecord = makeJsonObject(SEMANTIC_IDS.effectRecord, 'host/broker', {
          effect: effect.effect,
          scope: effect.scope,
          cost: 1,
          budgetBefore: before,
          budgetAfter: before - 1,
          allowed: true,
          failed: false,
          denial: '',
          requestRef: request.hash,
          resultRef: result.hash,
        });
        body = {
          ok: true,
          content: `text of ${path}`,
          world: {
            effects: [{ id: 'e1', status: 'ok', record: effectRecord.hash }],
            plan: plan.hash,
          },
        };
      } else {
        effectRecord = makeJsonObject(SEMANTIC_IDS.effectRecord, 'host/broker', {
          effect: effect.effect,
          scope: effect.scope,
          cost: 1,
          budgetBefore: 0,
          budgetAfter: 0,
          allowed: false,
          failed: false,
          denial: 'denied:budget',
          requestRef: request.hash,
          resultRef: '',
        });
        body = {
          world: {
            effects: [{ id: 'e1', status: 'denied', record: effectRecord.hash }],
            plan: plan.hash,
          },
        };
      }
    }
    const output = makeJsonObject(SEMANTIC_IDS.invocationOutput, writtenBy, body);
    const record = makeJsonObject(SEMANTIC_IDS.invocationRecord, writtenBy, {
      invocationId,
      episodeId: 'ep1',
      skillId: 'ailang-read',
      transitionFn: TRANSITION_FN.hash,
      interpreter: INTERPRETER.hash,
      semanticsEpoch: 1,
      input: input.hash,
      output: output.hash,
      plan: plan.hash,
      effects: effectRecord === undefined ? [] : [effectRecord.hash],
    });
    for (const o of [input, plan, output, record, request, result, effectRecord])
      if (o !== undefined) this.put(o);
    if (effectRecord !== undefined) this.brokerRecords.add(effectRecord.hash);
    const previous = this.entries_[index - 1]!;
    const { entry, world } = this.append(
      {
        entryIndex: index,
        semanticsEpoch: 1,
        transitionFn: TRANSITION_FN.hash,
        interpreter: INTERPRETER.hash,
        prevEntryHash: previous.entryHash,
        writtenBy,
      },
      record.hash,
      output.hash,
    );
    return {
      index,
      invocationId,
      input,
      plan,
      output,
      record,
      effectRecord,
      request,
      result,
      entry,
      world,
      outputBytes: Buffer.from(output.payload),
    };
  }

  /** Commits a REST transition with a receipt (world-spec §5.10, §5.11). */
  restCommit(id: string): { entry: LogEntry; world: World; state: WorldObject } {
    const state = makeJsonObject('world/demo/state', 'quickstart', { n: this.entries_.length });
    this.put(state);
    const previous = this.entries_.at(-1)!;
    const header = {
      entryIndex: this.entries_.length,
      semanticsEpoch: 1,
      transitionFn: state.hash,
      interpreter: state.hash,
      prevEntryHash: previous.entryHash,
      writtenBy: 'quickstart',
    };
    const { entry, world } = this.append(header, state.hash, state.hash);
    this.receipts.set(id, { invocationId: id, state: 'resolved', resultRef: world.ref });
    return { entry, world, state };
  }

  // ---------------------------------------------------------------- Provenance

  async head(): Promise<World | null> {
    return this.headRef === null ? null : this.worlds.get(this.headRef)!;
  }
  async world(ref: string): Promise<World | null> {
    return this.worlds.get(ref) ?? null;
  }
  async entry(index: number): Promise<StoredEntry | null> {
    const refused = this.refusedEntries.get(index);
    if (refused !== undefined) throw new EntryRefused(index, refused);
    return this.entries_[index] ?? null;
  }
  async entries(from: number, limit: number): Promise<LogEntry[]> {
    return this.entries_.slice(from, from + limit);
  }
  async object(ref: string): Promise<StoredObject | null> {
    this.reads += 1;
    const object = this.objects.get(ref);
    if (object !== undefined && this.hidden.has(ref))
      return { hash: ref, semanticId: '', provenance: '', payload: Buffer.alloc(0), hidden: true };
    const corrupt = this.refused.get(ref);
    if (object === undefined || corrupt === undefined) return object ?? null;
    return { ...object, payload: Buffer.alloc(0), corrupt };
  }
  async envelope(ref: string): Promise<Omit<StoredObject, 'payload'> | null> {
    const o = this.objects.get(ref);
    return o === undefined
      ? null
      : { hash: o.hash, semanticId: o.semanticId, provenance: o.provenance };
  }
  async receipt(id: string): Promise<Receipt | null> {
    return this.receipts.get(id) ?? null;
  }
  /** The ledger's lookup (ledger.entry_refs), computed from the stored records, newest first. */
  async locate(query: LocateQuery): Promise<number | null> {
    for (let i = this.entries_.length - 1; i >= 0; i -= 1) {
      const entry = this.entries_[i]!;
      const record = jsonOf(this.objects.get(entry.transitionRef)?.payload ?? Buffer.alloc(0)) as
        Record<string, unknown> | undefined;
      if ('invocationId' in query) {
        if (record?.invocationId === query.invocationId) return i;
        continue;
      }
      const named = new Set<string>();
      named.add(`record ${entry.transitionRef}`);
      for (const role of ['input', 'output', 'plan'] as const)
        named.add(`${role} ${String(record?.[role])}`);
      for (const ref of (record?.effects as string[] | undefined) ?? []) {
        named.add(`effect ${ref}`);
        const body = jsonOf(this.objects.get(ref)?.payload ?? Buffer.alloc(0)) as
          { requestRef?: string; resultRef?: string } | undefined;
        named.add(`request ${body?.requestRef}`);
        named.add(`result ${body?.resultRef}`);
      }
      if (query.roles.some((role) => named.has(`${role} ${query.ref}`))) return i;
    }
    return null;
  }

  async brokerRecord(ref: string): Promise<boolean> {
    return this.brokerRecords.has(ref);
  }
  async pin(): Promise<{ ref: string; version: string } | null> {
    return PIN;
  }
}
