/**
 * `world why`'s targets and how each finds its log entry (world-spec §7.3): an index or `head`
 * directly; a world ref through /v1/worlds; any other `sha256:` ref by its semantic id (record,
 * input, output, plan, effect record, request, result) through the ledger's index of the refs
 * each entry names (GET /v1/locate); `a2a:` and `mcp:` ids by the invocation record's
 * invocationId (the same index); `rest:` ids through their receipt; `-` (a result object) by the
 * sha256 of its canonical JSON = the output ref, falling back to its `world.plan`, and a result's
 * `world` block alone by its `plan` (compared with the committed output's block). Every lookup
 * is exact at any depth of the log; the newest entry wins when several name the ref.
 */
import { isRef, refOf } from '@world/canonical';
import {
  COORDINATOR_INVOCATION_ID,
  REST_INVOCATION_ID,
  SEMANTIC_IDS,
  WHY_SCAN_DEFAULT,
  WHY_SCAN_MAX,
  type RefRole,
} from '@world/contracts';
import { shortRef } from './format.js';
import { entryIndexOf, type Provenance } from './reads.js';
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
 * Parses `--scan N`: 1..5000, default 500 (world-spec §7.3). Still validated so scripts passing
 * it keep working; lookups are indexed now, so it bounds nothing.
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

/** The roles a ref of each kind is looked up in (the fields a record names it by). */
const LOOKUP_ROLES: Record<Role, readonly RefRole[]> = {
  record: ['record'],
  input: ['input'],
  output: ['output'],
  plan: ['plan'],
  'effect record': ['effect'],
  request: ['request'],
  result: ['result'],
  object: ['record', 'input', 'output', 'plan'],
};

/** Options of locate. */
export interface LocateOptions {
  /** the result object's bytes as read (for `-`) */
  stdin?: () => Promise<string>;
}

/**
 * Finds the entry a target names, by the ledger's indexes (Provenance.locate): exact at any
 * depth, in the caller's read scope.
 * @throws NotFoundTarget (exit 1) when nothing committed matches; WhyError (exit 2) for a result
 *   on stdin that is not a JSON object
 */
export async function locate(
  reads: Provenance,
  target: Target,
  options: LocateOptions = {},
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
    case 'invocation': {
      const index = await reads.locate({ invocationId: target.id });
      if (index === null)
        throw new NotFoundTarget(`${target.id}: no committed invocation record has this id`);
      return { index, matchedBy: `invocation ${target.id}` };
    }
    case 'ref':
      return locateRef(reads, target.ref);
    case 'result':
      return locateResult(reads, options);
  }
}

async function locateRef(reads: Provenance, ref: string): Promise<Located> {
  const world = await reads.world(ref);
  if (world !== null)
    return { index: entryIndexOf(world), world, matchedBy: `world ${shortRef(ref)}` };
  const envelope = await reads.envelope(ref);
  if (envelope === null) throw new NotFoundTarget(`${ref}: no object or world has this ref`);
  const role = roleOf(envelope.semanticId);
  const index = await reads.locate({ ref, roles: LOOKUP_ROLES[role] });
  const named = role === 'object' ? envelope.semanticId : role;
  if (index === null)
    throw new NotFoundTarget(`${ref}: no committed invocation names this ${named}`);
  return { index, matchedBy: `matched by ${named} ${shortRef(ref)}` };
}

/**
 * A result's `world` block on its own: `{plan, effects}`, the two handles every tool result carries
 * (world-spec §9.1), with no `world` key of its own — a whole result always has one.
 */
function isWorldBlock(value: object): value is { plan: string; effects: unknown[] } {
  const v = value as { world?: unknown; plan?: unknown; effects?: unknown };
  return !('world' in v) && isRef(v.plan) && Array.isArray(v.effects);
}

/** The entry whose record names the block's plan; the block is kept to compare with the output's. */
async function locateWorldBlock(
  reads: Provenance,
  block: { plan: string; effects: unknown[] },
): Promise<Located> {
  const index = await reads.locate({ ref: block.plan, roles: ['plan'] });
  if (index === null)
    throw new NotFoundTarget(
      `why -: no committed record names the world block's plan ${shortRef(block.plan)}`,
    );
  return {
    index,
    matchedBy: `matched by the world block's plan ${shortRef(block.plan)}`,
    worldBlock: resultBytes(block),
  };
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
  if (isWorldBlock(value)) return locateWorldBlock(reads, value);
  const bytes = resultBytes(value);
  const outputRef = refOf(bytes);
  const byOutput = await reads.locate({ ref: outputRef, roles: ['output'] });
  if (byOutput !== null)
    return {
      index: byOutput,
      matchedBy: 'matched by output (sha256 of the result)',
      result: bytes,
    };
  const plan = (value as { world?: { plan?: unknown } }).world?.plan;
  const byPlan = isRef(plan) ? await reads.locate({ ref: plan, roles: ['plan'] }) : null;
  if (byPlan === null)
    throw new NotFoundTarget(
      `why -: no committed output has the result's sha256 ${shortRef(outputRef)}${isRef(plan) ? ` and no committed record names its world.plan ${shortRef(plan)}` : ''}`,
    );
  return {
    index: byPlan,
    matchedBy: `matched by world.plan ${shortRef(plan as string)}: no committed output has the result's sha256 ${shortRef(outputRef)}`,
    result: bytes,
  };
}
