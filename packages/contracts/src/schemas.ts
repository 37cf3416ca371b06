/**
 * Zod schemas of the values that cross service boundaries. One definition each, imported by
 * both sides (DESIGN.md §1).
 */
import { z } from 'zod';
import { refProblem } from '@world/canonical';
import { EPISODE_ID, EPISODE_ID_RULE, HEX64, TASK_ID, TOOL_ID } from './ids.js';

/** A real (non-zero) `sha256:` ref. */
export const RefSchema = z.string().superRefine((v, ctx) => {
  const problem = refProblem(v);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: `ref ${problem}` });
}) as unknown as z.ZodType<`sha256:${string}`>;

export const EpisodeIdSchema = z.string().regex(EPISODE_ID, `episode id ${EPISODE_ID_RULE}`);
export const TaskIdSchema = z.string().regex(TASK_ID, 'task id must be 1-128 of [A-Za-z0-9._-]');
export const CredentialIdSchema = z.string().regex(HEX64, 'credential id must be 64 lowercase hex');
export const SurfaceSchema = z.enum(['mcp', 'a2a']);
export const NonNegInt = z.number().int().nonnegative();
export const EpochMs = z.number().int().nonnegative();

/**
 * A planner instance's caller id: PLANNER_CALLER_BYTES random bytes in hex, new for every planner
 * process (a restarted replica of the same name is another caller). It names the instance's
 * liveness subject, so it is one subject token (no `.`, `*`, `>` or spaces).
 */
export const CallerIdSchema = z
  .string()
  .regex(/^[0-9a-f]{1,64}$/, 'caller id must be 1 to 64 lowercase hex characters');

export const GrantSchema = z.object({
  effect: z.string().min(1),
  scope: z.string().min(1),
  budget: NonNegInt,
});
export const SessionGrantSchema = GrantSchema.extend({ expiresAt: EpochMs });

/** A session as resolved by the broker (the token itself is never stored). */
export const SessionSchema = z.object({
  credentialId: CredentialIdSchema,
  episodeId: EpisodeIdSchema,
  grants: z.array(SessionGrantSchema),
  createdAt: EpochMs,
  expiresAt: EpochMs,
});
export type Session = z.infer<typeof SessionSchema>;

/** The wire form of a content-addressed object (payload base64). */
export const WireObjectSchema = z.object({
  hash: RefSchema,
  interfaceHash: RefSchema,
  semanticId: z.string().min(1),
  provenance: z.string(),
  payload: z.string(),
});
/** An object's envelope without its payload (lookups never return payloads). */
export const ObjectHeadSchema = WireObjectSchema.omit({ payload: true });
/** An object with its payload only when asked for. */
export const ObjectReplySchema = ObjectHeadSchema.extend({ payload: z.string().optional() });

export const EntryHeaderSchema = z.object({
  entryIndex: NonNegInt,
  semanticsEpoch: NonNegInt,
  transitionFn: RefSchema,
  interpreter: RefSchema,
  prevEntryHash: RefSchema,
  writtenBy: z.string().min(1).max(256),
});
export const LogEntrySchema = z.object({
  header: EntryHeaderSchema,
  entryHash: RefSchema,
  transitionRef: RefSchema,
});
export const WorldSchema = z.object({
  ref: RefSchema,
  revision: NonNegInt,
  stateRoot: RefSchema,
  logHead: RefSchema,
});

/** An `{effect, scope, cost}` triple of a descriptor's `access` or `declaredEffects`. */
const EffectTripleSchema = z.object({
  effect: z.string().min(1),
  scope: z.string().min(1),
  cost: NonNegInt,
});
export type EffectTriple = z.infer<typeof EffectTripleSchema>;

/** One effect of a `world/effect-plan/v1` plan (world-spec §2.5). */
export const PlannedEffectSchema = EffectTripleSchema.extend({
  id: z.string().regex(/^[a-z0-9]{1,16}$/),
  payload: z.record(z.string(), z.unknown()),
});
export type PlannedEffect = z.infer<typeof PlannedEffectSchema>;

/** Effect statuses in the world block (world-spec §4.2). */
export const EffectStatusSchema = z.enum(['ok', 'failed', 'denied']);
export type EffectStatus = z.infer<typeof EffectStatusSchema>;

/** Denial labels, in precedence order (world-spec §2.8, world-internals §5.1). */
export const DENIAL_LABELS = [
  'denied:effect-name',
  'denied:scope',
  'denied:expired',
  'denied:budget',
] as const;
export type DenialLabel = (typeof DENIAL_LABELS)[number];

/** `world/effect-record/v1` payload (world-spec §2.8). */
export const EffectRecordSchema = z.object({
  effect: z.string(),
  scope: z.string(),
  cost: NonNegInt,
  budgetBefore: NonNegInt,
  budgetAfter: NonNegInt,
  allowed: z.boolean(),
  failed: z.boolean(),
  denial: z.union([z.enum(DENIAL_LABELS), z.literal('')]),
  requestRef: z.string(),
  resultRef: z.string(),
});
export type EffectRecord = z.infer<typeof EffectRecordSchema>;

/** A tool descriptor as the registry serves it (world-spec §2.4, §7.7). */
export const ToolDescriptorSchema = z.object({
  id: z.string().regex(TOOL_ID),
  title: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()),
  access: EffectTripleSchema,
  declaredEffects: z.array(EffectTripleSchema),
  transitionFn: RefSchema,
  interpreter: RefSchema,
  semanticsEpoch: NonNegInt,
  finish: z.boolean(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;

export { z };
