/**
 * The pieces every link check of `world why` shares (world-spec §7.3, §9): what a link is, the
 * object check every read goes through (re-hash, semantic id, World's refusal of altered bytes),
 * and the shortened invocation ids of the printout.
 */
import { refOf } from '@world/canonical';
import { CLI_SHORT_REF_HEX } from '@world/contracts';
import { shortRef } from './format.js';
import type { StoredObject } from './reads.js';

/** The links of a walk, in the order they print (world-spec §7.3 example). */
export type LinkName =
  | 'world'
  | 'entry'
  | 'record'
  | 'input'
  | 'plan'
  | 'effect'
  | 'output'
  /** the entry is a leaf of the signed checkpoint (log-link.ts) */
  | 'log';

/** One checked link: `ok` true (✓), false (✗) or null (could not be checked, e.g. a REST entry's world). */
export interface Link {
  name: LinkName;
  ok: boolean | null;
  ref: string;
  detail: string;
  /** set (with ok null) when the link's object is not this caller's to read: a named stop */
  hidden?: true;
}

/** The stop of an object the caller may not read (DESIGN.md §3), as the walk names it. */
export const NOT_VISIBLE = "not visible to this session (another episode's)";

/** An output's world block (world-spec §4.2). */
export interface OutputBody {
  world?: { plan?: unknown; effects?: Array<{ id?: unknown; status?: unknown; record?: unknown }> };
}

/**
 * The problems of one object read under `ref`: absent, bytes that do not hash to the ref, or
 * another semantic id than expected. Empty = the object is what its ref says.
 */
export function objectProblems(
  ref: string,
  object: StoredObject | null,
  semanticIds?: readonly string[],
): string[] {
  if (object === null) return ['not found'];
  if (object.hidden === true) return [NOT_VISIBLE];
  if (object.corrupt !== undefined)
    return [`the stored bytes were altered: World refuses to serve them (${object.corrupt})`];
  const problems: string[] = [];
  const actual = refOf(object.payload);
  if (actual !== ref)
    problems.push(
      `payload hashes to ${shortRef(actual)}, not its ref: the stored bytes were altered`,
    );
  if (semanticIds !== undefined && !semanticIds.includes(object.semanticId)) {
    problems.push(`is ${object.semanticId}, not ${semanticIds.join(' or ')}`);
  }
  return problems;
}

/** A link from its problems: ✓ with `detail` when none, a stop when only hidden, else ✗ with them. */
export function link(name: LinkName, ref: string, problems: string[], detail: string): Link {
  // An object the caller may not read is neither verified nor broken: a named stop.
  if (problems.length === 1 && problems[0] === NOT_VISIBLE)
    return { name, ok: null, ref, detail: NOT_VISIBLE, hidden: true };
  return problems.length === 0
    ? { name, ok: true, ref, detail }
    : { name, ok: false, ref, detail: problems.join('; ') };
}

/** `a2a:ep1:9ebcd16a…`: an invocation id whose task part is shortened like a ref. */
export function shortInvocation(id: string): string {
  const cut = id.lastIndexOf(':');
  const task = id.slice(cut + 1);
  return task.length > CLI_SHORT_REF_HEX * 2
    ? `${id.slice(0, cut + 1)}${task.slice(0, CLI_SHORT_REF_HEX)}…`
    : id;
}

export function isRefText(v: unknown): v is string {
  return typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v);
}
