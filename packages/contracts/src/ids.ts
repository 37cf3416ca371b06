/**
 * Identifiers and their grammars: episodes, task ids, invocation ids, credentials, grants,
 * semantic ids. Sources: world-spec §2.1, §2.7, §6.5, §10; DESIGN.md §7.4.
 */
import { createHash } from 'node:crypto';
import { BadRequestError } from './errors.js';
import { TASK_ID_MAX_CHARS } from './limits.js';

/** The episode id grammar without anchors, for ids that embed an episode (world-spec §2.1). */
const EPISODE_ID_BODY = '[a-z0-9][a-z0-9-]{0,63}';
/** The A2A task id / MCP idempotency key grammar without anchors (world-spec §6.5). */
const TASK_ID_BODY = `[A-Za-z0-9._-]{1,${TASK_ID_MAX_CHARS}}`;

/** Episode id grammar (world-spec §2.1). */
export const EPISODE_ID = new RegExp(`^${EPISODE_ID_BODY}$`);
/** What every refusal of a malformed episode id says after naming it (world-spec §2.1). */
export const EPISODE_ID_RULE = `must match ${EPISODE_ID.source}`;
/** A2A task id / MCP idempotency key grammar (world-spec §6.5). */
export const TASK_ID = new RegExp(`^${TASK_ID_BODY}$`);
/** What a refusal of a malformed caller-chosen task id says after naming it (world-spec §6.5). */
export const TASK_ID_RULE = 'must be 1-128 characters of [A-Za-z0-9._-]';
/**
 * A registry tool id: an MCP tool name verbatim, so `[a-z0-9-]`, at most 64 characters
 * (world-internals §7.1). Its own rule, though it reads like the episode grammar.
 */
export const TOOL_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** A session credential and its id: 64 lowercase hex (world-spec §2.2). */
export const HEX64 = /^[0-9a-f]{64}$/;

/** The surfaces a tool call arrives on; each tags its invocation ids and `writtenBy`. */
export type Surface = 'mcp' | 'a2a';

/** `writtenBy` of a coordinator commit: `coordinator:<surface>` (DESIGN.md §7.4). */
export function writtenByFor(surface: Surface): string {
  return `coordinator:${surface}`;
}

/** Invocation id `<surface>:<episode>:<task>` (world-spec §10). */
export function invocationIdOf(surface: Surface, episodeId: string, taskId: string): string {
  return `${surface}:${episodeId}:${taskId}`;
}

/** Invocation ids the coordinator commits: `a2a:` or `mcp:` + episode + task. */
export const COORDINATOR_INVOCATION_ID = new RegExp(
  `^(a2a|mcp):${EPISODE_ID_BODY}:${TASK_ID_BODY}$`,
);
/** Invocation ids of REST commits: `rest:<id>` (world-spec §5.10; a session's: `rest:<episode>:<id>`). */
export const REST_INVOCATION_ID = /^rest:[A-Za-z0-9._:-]{1,128}$/;

/**
 * The episode an invocation id is filed under: `a2a:`/`mcp:`/`rest:` + episode + `:` + the rest
 * (a session's REST ids are `rest:<episode>:<id>`, DESIGN.md §3), or null for an id of no
 * episode (an operator's `rest:<id>`).
 */
export function episodeOfInvocationId(invocationId: string): string | null {
  const [surface, episode, ...rest] = invocationId.split(':');
  if (rest.length === 0 || episode === undefined || !EPISODE_ID.test(episode)) return null;
  return surface === 'a2a' || surface === 'mcp' || surface === 'rest' ? episode : null;
}

/** Object semantic ids World writes (world-spec §2.13). */
export const SEMANTIC_IDS = {
  transitionSource: 'world/transition-source/v1',
  effectPlan: 'world/effect-plan/v1',
  effectRequest: 'world/effect-request/v1',
  effectResult: 'world/effect-result/v1',
  effectRecord: 'world/effect-record/v1',
  invocationInput: 'world/invocation-input/v1',
  invocationOutput: 'world/invocation-output/v1',
  invocationRecord: 'world/invocation-record/v2',
  transitionRegistry: 'world/transition-registry/v1',
  epochRegistry: 'world/epoch-registry/v1',
  genesis: 'world/genesis/v1',
  interpreter: 'world/interpreter/v1',
} as const;

/** `world/invocation-record/v1`: the record of a pure (effect-free) transition (world-spec §2.14). */
const INVOCATION_RECORD_V1 = 'world/invocation-record/v1';

/**
 * Semantic ids only World itself writes: tool-call provenance (plans, invocation inputs, outputs
 * and records; effect requests, results and records), the registries, the interpreter and the
 * genesis. A REST commit may neither carry an object of these ids nor point its entry at one
 * (DESIGN.md §3 "Who may read and write what").
 */
export const RESERVED_SEMANTIC_IDS: ReadonlySet<string> = new Set([
  ...Object.values(SEMANTIC_IDS),
  INVOCATION_RECORD_V1,
]);

/** Provenance of objects the broker writes (world-internals §3.2). */
export const BROKER_PROVENANCE = 'host/broker';

/** A grant as minted: effect name, exact scope, budget in calls (world-spec §2.7). */
export interface Grant {
  effect: string;
  scope: string;
  budget: number;
}

/** A grant bound to a session: it expires with the session (epoch milliseconds). */
export interface SessionGrant extends Grant {
  expiresAt: number;
}

const EFFECT_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,127}$/;

/**
 * Parses the textual grant form `EFFECT=SCOPE:BUDGET`; the budget is the last `:` segment, so a
 * scope may contain `:` (world-spec §2.7).
 * @throws BadRequestError naming the grant and the problem
 */
export function parseGrant(text: string): Grant {
  const eq = text.indexOf('=');
  const colon = text.lastIndexOf(':');
  const fail = (why: string) =>
    new BadRequestError(`grant "${text}" ${why}; expected EFFECT=SCOPE:BUDGET`);
  if (eq <= 0) throw fail('has no effect name');
  if (colon < eq) throw fail('has no budget');
  const effect = text.slice(0, eq);
  const scope = text.slice(eq + 1, colon);
  const budgetText = text.slice(colon + 1);
  if (!EFFECT_NAME.test(effect)) throw fail('has a malformed effect name');
  if (scope === '') throw fail('has an empty scope');
  if (!/^(0|[1-9][0-9]{0,15})$/.test(budgetText))
    throw fail('has a budget that is not a whole number');
  return { effect, scope, budget: Number(budgetText) };
}

/**
 * The textual form of a grant.
 * @internal exported for ids.spec.ts
 */
export function formatGrant(grant: Grant): string {
  return `${grant.effect}=${grant.scope}:${grant.budget}`;
}

/** The outcome of reading an Authorization header (world-spec §6.1). */
export type BearerParse =
  { kind: 'absent' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/**
 * Reads `Authorization: Bearer <64-hex>`; nothing else is a credential (world-spec §2.2).
 * The scheme is matched case-insensitively (RFC 9110 §11.1); the token must be 64 lowercase hex.
 */
export function parseBearer(header: string | undefined | null): BearerParse {
  if (header === undefined || header === null || header === '') return { kind: 'absent' };
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (match === null || !HEX64.test(match[1]!)) return { kind: 'malformed' };
  return { kind: 'token', token: match[1]! };
}

/**
 * The credential id of a token: sha256 of its hex text (world-internals §4). Only this is stored.
 */
export function credentialIdOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
