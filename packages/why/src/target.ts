/**
 * `world why`'s targets and how each finds its log entry (world-spec §7.3): an index or `head`
 * directly; a world ref through /v1/worlds; any other `sha256:` ref by its semantic id (record,
 * input, output, plan, effect record, request, result) by scanning back from the head; `a2a:`
 * and `mcp:` ids by the invocation record's invocationId (scan); `rest:` ids through their
 * receipt; `-` (a result object) by the sha256 of its canonical JSON = the output ref, falling
 * back to its `world.plan`. A scan reads one record per entry, at most `--scan` entries (default
 * 500, max 5000), within 60 s.
 */
import { isRef, refOf } from '@world/canonical';
import {
  COORDINATOR_INVOCATION_ID,
  REST_INVOCATION_ID,
  SEMANTIC_IDS,
  WHY_SCAN_CONCURRENCY,
  WHY_SCAN_DEFAULT,
  WHY_SCAN_MAX,
  WHY_SCAN_MS,
  PAGE_MAX,
} from '@world/contracts';
import { shortRef } from './format.js';
import {
  entryIndexOf,
  jsonOf,
  type LogEntry,
  type Provenance,
  type StoredObject,
} from './reads.js';
import { INVOCATION_RECORD_IDS } from './reads.js';
import { resultBytes, type WalkStart } from './walk.js';

/** A parsed target. */
export type Target =
  | { kind: 'index'; index: number }
  | { kind: 'head' }
  | { kind: 'ref'; ref: string }
  | { kind: 'invocation'; id: string }
  | { kind: 'rest'; id: string }
  | { kind: 'result' };

/** Exit code of a target that names nothing committed (world-spec §7.3: 1 when not found). */
const EXIT_NOT_FOUND = 1;

/**
 * Parses a `why` target.
 * @throws WhyError (exit 2) for anything else, naming the accepted forms
 */
export function parseTarget(text: string): Target {
  if (/^[0-9]+$/.test(text) && Number.isSafeInteger(Number(text)))
    return { kind: 'index', index: Number(text) };
  if (text === 'head') return { kind: 'head' };
  if (text === '-') return { kind: 'result' };
  if (text.startsWith('sha256:')) {
    if (!isRef(text))
      throw new WhyError(`why: "${text}" is not a ref (sha256:<64 lowercase hex>)`, 2);
    return { kind: 'ref', ref: text };
  }
  if (text.startsWith('a2a:') || text.startsWith('mcp:')) {
    if (!COORDINATOR_INVOCATION_ID.test(text))
      throw new WhyError(
        `why: "${text}" is not an invocation id (<a2a|mcp>:<episode>:<task id>)`,
        2,
      );
    return { kind: 'invocation', id: text };
  }
  if (text.startsWith('rest:')) {
    if (!REST_INVOCATION_ID.test(text))
      throw new WhyError(`why: "${text}" is not a REST invocation id (rest:<id>)`, 2);
    return { kind: 'rest', id: text };
  }
  throw new WhyError(
    `why: target "${text}" must be an entry index, head, sha256:<ref>, a2a:<id>, mcp:<id>, rest:<id> or - (a result on stdin)`,
    2,
  );
}

/**
 * Parses `--scan N`: 1..5000, default 500 (world-spec §7.3).
 * @throws WhyError (exit 2)
 */
export function parseScan(text: string | undefined): number {
  if (text === undefined) return WHY_SCAN_DEFAULT;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > WHY_SCAN_MAX)
    throw new WhyError(`--scan "${text}" must be 1..${WHY_SCAN_MAX}`, 2);
  return n;
}

/** Where a target led: the walk's start and the words of the `why:` line. */
export interface Located extends WalkStart {
  matchedBy: string | null;
}

/**
 * A target the walk cannot start from, with the exit code `world why` gives it (world-spec §7.3):
 * 2 for a target or option that is not well formed, 1 (NotFoundTarget) when nothing matches.
 */
export class WhyError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'WhyError';
  }
}

/** A target that names nothing committed (exit 1). */
export class NotFoundTarget extends WhyError {
  constructor(message: string) {
    super(message, EXIT_NOT_FOUND);
    this.name = 'NotFoundTarget';
  }
}

/** The role an object plays in an invocation, by its semantic id (world-spec §2.13, §9.1). */
type Role =
  'record' | 'input' | 'output' | 'plan' | 'effect record' | 'request' | 'result' | 'object';

function roleOf(semanticId: string): Role {
  if (INVOCATION_RECORD_IDS.includes(semanticId)) return 'record';
  switch (semanticId) {
    case SEMANTIC_IDS.invocationInput:
      return 'input';
    case SEMANTIC_IDS.invocationOutput:
      return 'output';
    case SEMANTIC_IDS.effectPlan:
      return 'plan';
    case SEMANTIC_IDS.effectRecord:
      return 'effect record';
    case SEMANTIC_IDS.effectRequest:
      return 'request';
    case SEMANTIC_IDS.effectResult:
      return 'result';
    default:
      return 'object';
  }
}

/** A record's fields a scan matches on. */
interface RecordFields {
  invocationId?: unknown;
  input?: unknown;
  output?: unknown;
  plan?: unknown;
  effects?: unknown;
}

/** Decides whether one scanned entry is the one: a description of the match, or null. */
type Matcher = (
  entry: LogEntry,
  record: RecordFields | null,
  reads: Provenance,
) => Promise<string | null>;

/** Options of locate. */
export interface LocateOptions {
  scan: number;
  /** the result object's bytes as read (for `-`) */
  stdin?: () => Promise<string>;
  /** now, in ms (tests) */
  clock?: () => number;
}

/**
 * Finds the entry a target names.
 * @throws NotFoundTarget (exit 1) when nothing committed matches; WhyError (exit 2) for a result
 *   on stdin that is not a JSON object
 */
export async function locate(
  reads: Provenance,
  target: Target,
  options: LocateOptions,
): Promise<Located> {
  switch (target.kind) {
    case 'index':
      return { index: target.index, matchedBy: null };
    case 'head': {
      const head = await reads.head();
      if (head === null) throw new NotFoundTarget('no world head has been selected yet');
      return { index: entryIndexOf(head), world: head, matchedBy: 'the head' };
    }
    case 'rest': {
      const receipt = await reads.receipt(target.id);
      if (receipt === null || receipt.state !== 'resolved' || receipt.resultRef === undefined) {
        throw new NotFoundTarget(
          `${target.id}: ${receipt === null ? 'no receipt' : `receipt is ${receipt.state}`}; nothing committed under it`,
        );
      }
      const world = await reads.world(receipt.resultRef);
      if (world === null)
        throw new NotFoundTarget(
          `${target.id}: its receipt names world ${shortRef(receipt.resultRef)}, which is not found`,
        );
      return {
        index: entryIndexOf(world),
        world,
        matchedBy: `receipt ${target.id} → world ${shortRef(world.ref)}`,
      };
    }
    case 'invocation':
      return scanFor(reads, options, async (_entry, record) =>
        record?.invocationId === target.id ? `invocation ${target.id}` : null,
      );
    case 'ref':
      return locateRef(reads, target.ref, options);
    case 'result':
      return locateResult(reads, options);
  }
}

async function locateRef(reads: Provenance, ref: string, options: LocateOptions): Promise<Located> {
  const world = await reads.world(ref);
  if (world !== null)
    return { index: entryIndexOf(world), world, matchedBy: `world ${shortRef(ref)}` };
  const envelope = await reads.envelope(ref);
  if (envelope === null) throw new NotFoundTarget(`${ref}: no object or world has this ref`);
  const role = roleOf(envelope.semanticId);
  const by = `matched by ${role} ${shortRef(ref)}`;
  const effectRecords = async (record: RecordFields | null): Promise<StoredObject[]> => {
    if (!Array.isArray(record?.effects)) return [];
    const found = await Promise.all((record.effects as string[]).map((r) => reads.object(r)));
    return found.filter((o): o is StoredObject => o !== null);
  };
  const field =
    (name: 'request' | 'result') => async (_e: LogEntry, record: RecordFields | null) => {
      for (const o of await effectRecords(record)) {
        const body = jsonOf(o.payload) as { requestRef?: unknown; resultRef?: unknown } | undefined;
        if ((name === 'request' ? body?.requestRef : body?.resultRef) === ref) return by;
      }
      return null;
    };
  const matchers: Record<Role, Matcher> = {
    record: async (e) => (e.transitionRef === ref ? by : null),
    input: async (_e, r) => (r?.input === ref ? by : null),
    output: async (_e, r) => (r?.output === ref ? by : null),
    plan: async (_e, r) => (r?.plan === ref ? by : null),
    'effect record': async (_e, r) =>
      Array.isArray(r?.effects) && r.effects.includes(ref) ? by : null,
    request: field('request'),
    result: field('result'),
    object: async (e, r) =>
      e.transitionRef === ref || r?.input === ref || r?.output === ref || r?.plan === ref
        ? `matched by ${envelope.semanticId} ${shortRef(ref)}`
        : null,
  };
  return scanFor(reads, options, matchers[role]);
}

async function locateResult(reads: Provenance, options: LocateOptions): Promise<Located> {
  const text = options.stdin === undefined ? '' : await options.stdin();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new WhyError(`why -: standard input is not JSON (${(err as Error).message})`, 2);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new WhyError('why -: standard input must be a result object', 2);
  const bytes = resultBytes(value);
  const outputRef = refOf(bytes);
  try {
    const found = await scanFor(reads, options, async (_e, r) =>
      r?.output === outputRef ? 'matched by output (sha256 of the result)' : null,
    );
    return { ...found, result: bytes };
  } catch (err) {
    const plan = (value as { world?: { plan?: unknown } }).world?.plan;
    if (!(err instanceof NotFoundTarget) || !isRef(plan)) throw err;
    const found = await scanFor(reads, options, async (_e, r) =>
      r?.plan === plan
        ? `matched by world.plan ${shortRef(plan)}: no committed output has the result's sha256 ${shortRef(outputRef)}`
        : null,
    );
    return { ...found, result: bytes };
  }
}

/**
 * Scans back from the head, newest first, reading each entry's record (a few at a time), until
 * `match` says yes, `scan` entries are examined or WHY_SCAN_MS has passed.
 * @throws NotFoundTarget `not found in the last N entries`
 */
async function scanFor(
  reads: Provenance,
  options: LocateOptions,
  match: Matcher,
): Promise<Located> {
  const clock = options.clock ?? Date.now;
  const ends = clock() + WHY_SCAN_MS;
  const head = await reads.head();
  if (head === null) throw new NotFoundTarget('no world head has been selected yet');
  const headIndex = entryIndexOf(head);
  const lowest = Math.max(0, headIndex - options.scan + 1);
  let examined = 0;
  let top = headIndex;
  while (top >= lowest) {
    const from = Math.max(lowest, top - PAGE_MAX + 1);
    const page = (await reads.entries(from, top - from + 1)).reverse();
    for (let i = 0; i < page.length; i += WHY_SCAN_CONCURRENCY) {
      if (clock() > ends)
        throw new NotFoundTarget(
          `not found in the last ${examined} entries (the ${WHY_SCAN_MS / 1000} s scan limit ended)`,
        );
      const batch = page.slice(i, i + WHY_SCAN_CONCURRENCY);
      const records = await Promise.all(batch.map((e) => reads.object(e.transitionRef)));
      for (const [j, entry] of batch.entries()) {
        examined += 1;
        const object = records[j];
        const record =
          object !== null &&
          object !== undefined &&
          INVOCATION_RECORD_IDS.includes(object.semanticId)
            ? ((jsonOf(object.payload) ?? null) as RecordFields | null)
            : null;
        const matched = await match(entry, record, reads);
        if (matched !== null) return { index: entry.header.entryIndex, matchedBy: matched };
      }
    }
    if (page.length === 0) break;
    top = from - 1;
  }
  throw new NotFoundTarget(`not found in the last ${examined} entries`);
}
