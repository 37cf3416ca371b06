/**
 * `world why`'s walk of one invocation (world-spec §7.3, §9): from a log entry it checks
 * every link — the world ref recomputed (worldRef) and found, the entry hash recomputed
 * (entryHash) and linked to the previous entry, the invocation record, its input, its plan, each
 * effect record with its request and result, and the output, which must be the world's stateRoot.
 * Every object read is re-hashed: sha256 of the payload bytes must equal the ref it was read
 * under — that is what catches bytes altered in storage (World itself refuses to serve such
 * bytes, StoredObjectCorrupt; the walk reports either). An object that fails its own check is
 * never used to judge another link. Tool-call provenance must be the coordinator's: an
 * invocation record's entry is written by `coordinator:<surface>` of its invocation id, and each
 * effect record is one World's broker wrote (GET /v1/effects; DESIGN.md §3).
 */
import { canonicalBytes, worldRef, type LogEntry, type World } from '@world/canonical';
import { SEMANTIC_IDS } from '@world/contracts';
import { preview, shortRef } from './format.js';
import { EntryRefused, jsonOf, type Provenance, type StoredObject } from './reads.js';
import { entryLink, hiddenWorld, refusedOr } from './entry-link.js';
import { INVOCATION_RECORD_IDS } from './reads.js';
import { effectLink } from './effect-link.js';
import {
  isRefText,
  link,
  objectProblems,
  shortInvocation,
  type Link,
  type OutputBody,
} from './link.js';

export { type Link } from './link.js';

/** What the walk starts from. */
export interface WalkStart {
  index: number;
  /** the world the target named (head, a world ref, a receipt), when known */
  world?: World;
  /** the caller's result bytes (`why -`), compared with the committed output */
  result?: Buffer;
  /**
   * the canonical bytes of a result's `world` block the caller gave alone (`why -`), compared with
   * the committed output's `world` block
   */
  worldBlock?: Buffer;
}

/** The fields of `world/invocation-record/v2` (world-spec §2.14); v1 lacks plan and effects. */
interface InvocationRecord {
  invocationId: string;
  episodeId: string;
  skillId: string;
  transitionFn: string;
  interpreter: string;
  semanticsEpoch: number;
  input: string;
  output: string;
  plan?: string;
  effects?: string[];
}

/** A plan object's fields (world-spec §2.5). */
interface PlanBody {
  effects?: Array<{ id?: string; effect?: string; scope?: string; cost?: number }>;
  result?: { refused?: unknown } | null;
}

/** The record's fields when its payload has the §2.14 shape, else a reason. */
function parseRecord(object: StoredObject): InvocationRecord | string {
  const body = jsonOf(object.payload) as Partial<InvocationRecord> | undefined;
  if (body === undefined || typeof body !== 'object' || body === null)
    return 'payload is not a JSON object';
  const v2 = object.semanticId === SEMANTIC_IDS.invocationRecord;
  const refFields: Array<keyof InvocationRecord> = [
    'transitionFn',
    'interpreter',
    'input',
    'output',
    ...(v2 ? (['plan'] as const) : []),
  ];
  for (const field of refFields) if (!isRefText(body[field])) return `field ${field} is not a ref`;
  for (const field of ['invocationId', 'episodeId', 'skillId'] as const)
    if (typeof body[field] !== 'string') return `field ${field} is not a string`;
  if (typeof body.semanticsEpoch !== 'number') return 'field semanticsEpoch is not a number';
  if (v2 && (!Array.isArray(body.effects) || !body.effects.every(isRefText)))
    return 'field effects is not a list of refs';
  return body as InvocationRecord;
}

/**
 * Walks the invocation committed as entry `start.index`.
 * @returns the links in print order, or null when the entry does not exist
 * @throws the reads' errors (unreachable gateway, refused credential)
 */
export async function walk(reads: Provenance, start: WalkStart): Promise<Link[] | null> {
  const entry = await refusedOr(reads.entry(start.index));
  if (entry === null) return null;
  // World refused the entry itself: its fields are not served, so nothing past it is walked.
  if (entry instanceof EntryRefused)
    return [{ name: 'entry', ok: false, ref: '-', detail: entry.message }];
  const [previous, pin, recordObject] = await Promise.all([
    start.index > 0 ? refusedOr(reads.entry(start.index - 1)) : Promise.resolve(null),
    reads.pin(),
    reads.object(entry.transitionRef),
  ]);

  const recordProblems = objectProblems(entry.transitionRef, recordObject);
  const isInvocation =
    recordObject !== null &&
    recordObject.corrupt === undefined &&
    INVOCATION_RECORD_IDS.includes(recordObject.semanticId);
  const parsed = isInvocation ? parseRecord(recordObject!) : null;
  if (typeof parsed === 'string') recordProblems.push(parsed);
  const record = typeof parsed === 'object' ? parsed : null;

  const outputRef = record?.output ?? start.world?.stateRoot ?? null;
  const outputObject = outputRef === null ? null : await reads.object(outputRef);
  const outputProblems =
    outputRef === null
      ? []
      : objectProblems(
          outputRef,
          outputObject,
          record === null ? undefined : [SEMANTIC_IDS.invocationOutput],
        );
  // Only an output that is what its ref says may judge the plan and effect links.
  const output =
    outputProblems.length === 0 && outputObject !== null
      ? (jsonOf(outputObject.payload) as OutputBody | undefined)
      : undefined;

  const links: Link[] = [];
  links.push(
    recordObject?.hidden === true && start.world === undefined
      ? hiddenWorld(start.index)
      : await worldLink(reads, entry, start, record),
  );
  links.push(entryLink(entry, start.index, previous, pin));
  links.push(recordLink(entry, recordObject, recordProblems, record));
  if (record !== null) {
    links.push(await inputLink(reads, record.input));
    if (record.plan !== undefined) {
      const planObject = await reads.object(record.plan);
      const planProblems = objectProblems(record.plan, planObject, [SEMANTIC_IDS.effectPlan]);
      const plan =
        planProblems.length === 0 && planObject !== null
          ? (jsonOf(planObject.payload) as PlanBody | undefined)
          : undefined;
      links.push(planLink(record, planProblems, plan, output));
      const planned = plan?.effects ?? [];
      for (const [i, ref] of (record.effects ?? []).entries()) {
        links.push(await effectLink(reads, ref, i, planned[i], output));
      }
    }
  }
  if (outputRef !== null) links.push(outputLink(outputRef, outputObject, outputProblems, start));
  return links;
}

async function worldLink(
  reads: Provenance,
  entry: LogEntry,
  start: WalkStart,
  record: InvocationRecord | null,
): Promise<Link> {
  const candidate =
    start.world ??
    (record === null
      ? null
      : {
          revision: start.index,
          stateRoot: record.output as World['stateRoot'],
          logHead: entry.entryHash,
        });
  if (candidate === null) {
    return {
      name: 'world',
      ok: null,
      ref: '-',
      detail: `entry #${start.index} names no output to recompute its world from (not an invocation); only a head or receipt world can be confirmed`,
    };
  }
  const ref = worldRef(candidate);
  const problems: string[] = [];
  if (start.world !== undefined && start.world.ref !== ref)
    problems.push(`recomputes to ${shortRef(ref)}, not its ref ${shortRef(start.world.ref)}`);
  if (candidate.revision !== start.index)
    problems.push(`revision ${candidate.revision} is not entry #${start.index}`);
  if (candidate.logHead !== entry.entryHash)
    problems.push(
      `logHead ${shortRef(candidate.logHead)} is not entry #${start.index}'s hash ${shortRef(entry.entryHash)}`,
    );
  if (record !== null && candidate.stateRoot !== record.output)
    problems.push(
      `stateRoot ${shortRef(candidate.stateRoot)} is not the record's output ${shortRef(record.output)}`,
    );
  const found = await reads.world(ref);
  if (found === null)
    problems.push(`${shortRef(ref)} is not a world of this ledger (GET /v1/worlds: not found)`);
  else if (
    found.revision !== candidate.revision ||
    found.stateRoot !== candidate.stateRoot ||
    found.logHead !== candidate.logHead
  ) {
    problems.push('the stored world row differs from the recomputed one');
  }
  return link(
    'world',
    ref,
    problems,
    `revision ${candidate.revision}, stateRoot ${shortRef(candidate.stateRoot)}, logHead ${shortRef(candidate.logHead)} (recomputed)`,
  );
}

function recordLink(
  entry: LogEntry,
  object: StoredObject | null,
  problems: string[],
  record: InvocationRecord | null,
): Link {
  if (object === null) return link('record', entry.transitionRef, problems, '');
  if (record === null) {
    return link(
      'record',
      entry.transitionRef,
      problems,
      `${object.semanticId} (not an invocation record: nothing more to walk)`,
    );
  }
  const h = entry.header;
  const all = [...problems];
  if (record.transitionFn !== h.transitionFn)
    all.push(
      `transitionFn ${shortRef(record.transitionFn)} is not the entry's ${shortRef(h.transitionFn)}`,
    );
  if (record.interpreter !== h.interpreter)
    all.push(
      `interpreter ${shortRef(record.interpreter)} is not the entry's ${shortRef(h.interpreter)}`,
    );
  if (record.semanticsEpoch !== h.semanticsEpoch)
    all.push(`semanticsEpoch ${record.semanticsEpoch} is not the entry's ${h.semanticsEpoch}`);
  all.push(...coordinatorProblems(h.writtenBy, record));
  return link(
    'record',
    entry.transitionRef,
    all,
    `${object.semanticId} invocation ${shortInvocation(record.invocationId)} episode ${record.episodeId} skill ${record.skillId}`,
  );
}

/**
 * An invocation record is the coordinator's: its entry is written by `coordinator:<surface>` of
 * the invocation id (`<surface>:<episode>:<task>`, DESIGN.md §7.4), and the id names the record's
 * episode. Anything else (a REST commit presenting a record, DESIGN.md §3) is not a tool call.
 */
function coordinatorProblems(writtenBy: string, record: InvocationRecord): string[] {
  const [surface, episode] = record.invocationId.split(':');
  const problems: string[] = [];
  if (surface !== 'a2a' && surface !== 'mcp') {
    problems.push(`invocation id ${shortInvocation(record.invocationId)} is not a tool call's`);
    return problems;
  }
  if (writtenBy !== `coordinator:${surface}`)
    problems.push(
      `written by ${writtenBy}, not coordinator:${surface}: only World's coordinator writes tool calls`,
    );
  if (episode !== record.episodeId)
    problems.push(
      `invocation id ${shortInvocation(record.invocationId)} is not of episode ${record.episodeId}`,
    );
  return problems;
}

async function inputLink(reads: Provenance, ref: string): Promise<Link> {
  const object = await reads.object(ref);
  const problems = objectProblems(ref, object, [SEMANTIC_IDS.invocationInput]);
  const body = object === null ? undefined : jsonOf(object.payload);
  return link('input', ref, problems, body === undefined ? '(not JSON)' : preview(body));
}

function planLink(
  record: InvocationRecord,
  problems: string[],
  plan: PlanBody | undefined,
  output: OutputBody | undefined,
): Link {
  const all = [...problems];
  if (problems.length === 0 && plan === undefined) all.push('payload is not JSON');
  const planned = plan?.effects ?? [];
  const recorded = record.effects ?? [];
  if (plan !== undefined && planned.length !== recorded.length) {
    all.push(`plans ${planned.length} effect(s) but the record lists ${recorded.length}`);
  }
  if (output !== undefined && output.world?.plan !== record.plan) {
    all.push(
      `the output's world.plan ${shortRef(String(output.world?.plan))} is not the record's plan`,
    );
  }
  const described =
    planned.length === 0
      ? `0 effect(s)${typeof plan?.result?.refused === 'string' ? `: refused ${preview(plan.result.refused)}` : ''}`
      : `${planned.length} effect(s): ${planned.map((e) => `${e.id} ${e.effect}@${e.scope} cost ${e.cost}`).join(', ')}`;
  return link('plan', record.plan!, all, described);
}

function outputLink(
  ref: string,
  object: StoredObject | null,
  problems: string[],
  start: WalkStart,
): Link {
  const all = [...problems];
  if (start.world !== undefined && start.world.stateRoot !== ref)
    all.push(`is not the world's stateRoot ${shortRef(start.world.stateRoot)}`);
  let yours = '';
  if (start.result !== undefined && object !== null && object.hidden !== true) {
    if (start.result.equals(object.payload)) yours = '; your result is these exact bytes';
    else
      all.push(
        `your result (${start.result.length} B) differs from the committed bytes (${object.payload.length} B)`,
      );
  }
  if (start.worldBlock !== undefined && object !== null && object.hidden !== true) {
    const committed = (jsonOf(object.payload) as OutputBody | undefined)?.world;
    if (committed !== undefined && resultBytes(committed).equals(start.worldBlock))
      yours = '; your world block is its world block';
    else all.push("your world block differs from the committed output's world block");
  }
  const size = object === null ? '' : `${object.payload.length} B `;
  return link('output', ref, all, `${size}= world.stateRoot${yours}`);
}

/** The canonical bytes of a result object (RFC 8785: what World commits); its sha256 is the output ref. */
export function resultBytes(value: unknown): Buffer {
  return canonicalBytes(value);
}
